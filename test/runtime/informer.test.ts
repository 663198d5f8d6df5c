import { describe, expect, it, vi } from 'vitest';
import { Informer, type ListerWatcher } from '../../src/runtime/informer.ts';
import type { WatchEvent } from '../../src/runtime/kube.ts';
import { KubeError } from '../../src/runtime/kube-errors.ts';
import type { KubeObject } from '../../src/runtime/kube-objects.ts';

const obj = (name: string, rv: string): KubeObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

describe('Informer relist', () => {
  it('applies each page as it comes and deletes what the complete list lacks, after a 410', async () => {
    const lists = [
      [[obj('keep', '1'), obj('change', '2')], [obj('gone', '3')]],
      [[obj('keep', '1')], [obj('change', '7'), obj('new', '8')]],
    ];
    let listed = 0;
    const source: ListerWatcher<KubeObject> = {
      async *list() {
        const pages = lists[listed++]!;
        for (const [i, items] of pages.entries()) yield { items, resourceVersion: String(10 * listed + i) };
      },
      watch: async (_ns, _rv, _t, signal) =>
        (async function* () {
          // The first watch is told its version is too old: the informer lists again.
          if (listed === 1) yield { type: 'ERROR' as const, error: new KubeError(410, 'Expired', 'too old') };
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        })(),
    };
    const seen: string[] = [];
    const informer = new Informer(source, { resyncMs: 0 });
    informer.addHandlers({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (a, b) =>
        seen.push(`update ${a.metadata.name} ${a.metadata.resourceVersion}→${b.metadata.resourceVersion}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    informer.start();
    await vi.waitFor(() => expect(informer.stats().lists).toBe(2));
    expect(seen).toEqual([
      'add keep',
      'add change',
      'add gone',
      'update change 2→7',
      'add new',
      'delete gone',
    ]);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['change', 'keep', 'new']);
    await informer.stop();
  });
});

describe('Informer indexes', () => {
  /** A source that lists `initial` once, then streams `events` and stays open until aborted. */
  function source(initial: KubeObject[], events: WatchEvent<KubeObject>[]): ListerWatcher<KubeObject> {
    return {
      async *list() {
        yield { items: initial, resourceVersion: '1' };
      },
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
