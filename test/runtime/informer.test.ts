import { describe, expect, it } from 'vitest';
import { diffRelist } from '../../src/runtime/informer.ts';
import type { KubeObject } from '../../src/runtime/kube.ts';

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
