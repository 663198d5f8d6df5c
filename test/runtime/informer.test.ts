import { describe, expect, it, vi } from 'vitest';
import { diffRelist, Informer, type ListerWatcher } from '../../src/runtime/informer.ts';
import type { KubeObject, WatchEvent } from '../../src/runtime/kube.ts';

const obj = (name: string, rv: string): KubeObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

describe('diffRelist', () => {
  it('finds what was added, changed, unchanged and deleted since the cache was filled', () => {
    const cached = new Map([
      ['ns/keep', obj('keep', '1')],
      ['ns/change', obj('change', '2')],
      ['ns/gone', obj('gone', '3')],
    ]);
    const diff = diffRelist(cached, [obj('keep', '1'), obj('change', '7'), obj('new', '8')]);
    expect(diff.added.map((o) => o.metadata.name)).toEqual(['new']);
    expect(diff.updated.map(([a, b]) => [a.metadata.resourceVersion, b.metadata.resourceVersion])).toEqual([
      ['2', '7'],
    ]);
    expect(diff.unchanged.map(([, b]) => b.metadata.name)).toEqual(['keep']);
    expect(diff.deleted.map((o) => o.metadata.name)).toEqual(['gone']);
  });

  it('an empty list deletes everything cached', () => {
    const diff = diffRelist(new Map([['ns/a', obj('a', '1')]]), []);
    expect(diff.deleted).toHaveLength(1);
    expect(diff.added).toHaveLength(0);
  });
});

describe('Informer indexes', () => {
  /** A source that lists `initial` once, then streams `events` and stays open until aborted. */
  function source(initial: KubeObject[], events: WatchEvent<KubeObject>[]): ListerWatcher<KubeObject> {
    return {
      list: async () => ({ items: initial, resourceVersion: '1' }),
      watch: async (_ns, _rv, _t, signal) =>
        (async function* () {
          yield* events;
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        })(),
    };
  }
  const labelled = (name: string, rv: string, team?: string): KubeObject => ({
    metadata: { name, namespace: 'ns', resourceVersion: rv, ...(team ? { labels: { team } } : {}) },
  });
  const team = (o: KubeObject) => (o.metadata.labels?.team ? [o.metadata.labels.team] : []);
  const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();

  it('answer by value and follow adds, updates that move an object, and deletes', async () => {
    const informer = new Informer(
      source(
        [labelled('a', '1', 'red'), labelled('b', '1', 'red'), labelled('c', '1')],
        [
          { type: 'MODIFIED', object: labelled('b', '2', 'blue') },
          { type: 'ADDED', object: labelled('d', '3', 'blue') },
          { type: 'DELETED', object: labelled('a', '4', 'red') },
        ],
      ),
      { resyncMs: 0 },
    );
    informer.addIndex('team', team);
    informer.start();
    await informer.waitForSync();
    await vi.waitFor(() => expect(informer.get('ns/a')).toBeUndefined());
    expect(names(informer.byIndex('team', 'red'))).toEqual([]);
    expect(names(informer.byIndex('team', 'blue'))).toEqual(['b', 'd']);
    expect([...informer.indexValues('team')]).toEqual(['blue']);
    await informer.stop();
  });

  it('index what is already cached when added late', async () => {
    const informer = new Informer(source([labelled('a', '1', 'red')], []), { resyncMs: 0 });
    informer.start();
    await informer.waitForSync();
    informer.addIndex('team', team);
    expect(names(informer.byIndex('team', 'red'))).toEqual(['a']);
    await informer.stop();
  });
});
