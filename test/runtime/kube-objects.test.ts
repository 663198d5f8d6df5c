import { describe, expect, it } from 'vitest';
import { CONFIGMAPS, LEASES, objectKey, resourcePath, splitKey } from '../../src/runtime/kube-objects.ts';

describe('resourcePath', () => {
  it('addresses core and grouped, namespaced and cluster-scoped resources', () => {
    expect(resourcePath(CONFIGMAPS, 'a', 'b')).toBe('/api/v1/namespaces/a/configmaps/b');
    expect(resourcePath(CONFIGMAPS)).toBe('/api/v1/configmaps');
    expect(resourcePath(LEASES, 'kube-system', 'x')).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x',
    );
    const listeners = {
      group: 'deploy.agents.dev',
      version: 'v1alpha1',
      plural: 'listeners',
      namespaced: false,
    };
    expect(resourcePath(listeners, 'ignored', 'l1', 'status')).toBe(
      '/apis/deploy.agents.dev/v1alpha1/listeners/l1/status',
    );
  });
});

describe('keys', () => {
  it('are namespace/name, or name for cluster-scoped objects, and split back', () => {
    expect(objectKey({ metadata: { name: 'n', namespace: 'ns' } })).toBe('ns/n');
    expect(objectKey({ metadata: { name: 'n' } })).toBe('n');
    expect(splitKey('ns/n')).toEqual({ namespace: 'ns', name: 'n' });
    expect(splitKey('n')).toEqual({ name: 'n' });
  });
});
