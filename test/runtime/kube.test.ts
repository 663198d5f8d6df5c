import { describe, expect, it } from 'vitest';
import {
  buildEvent,
  CONFIGMAPS,
  isConflict,
  isGone,
  KubeError,
  LEASES,
  objectKey,
  resourcePath,
  splitKey,
  statusError,
} from '../../src/runtime/kube.ts';

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

describe('statusError', () => {
  it('reads a Status object', () => {
    const err = statusError(
      409,
      JSON.stringify({
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        message: 'the object has been modified',
      }),
    );
    expect(err).toBeInstanceOf(KubeError);
    expect([err.status, err.reason, err.message]).toEqual([409, 'Conflict', 'the object has been modified']);
    expect(isConflict(err)).toBe(true);
    expect(isGone(err)).toBe(false);
  });

  it('keeps the HTTP status when the body is not a Status', () => {
    const err = statusError(502, '<html>bad gateway</html>');
    expect([err.status, err.reason, err.message]).toEqual([502, '', '<html>bad gateway</html>']);
  });
});

describe('buildEvent', () => {
  it('makes a core/v1 Event about the object, in its namespace', () => {
    const event = buildEvent(
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'ns', uid: 'u1' },
      { type: 'Warning', reason: 'Failed', message: 'it broke' },
      'agent-deploy',
      new Date('2026-01-02T03:04:05.678Z'),
    );
    expect(event.metadata.namespace).toBe('ns');
    expect(event.metadata.name).toMatch(/^cm\.[0-9a-f]+$/);
    expect(event).toMatchObject({
      involvedObject: { kind: 'ConfigMap', name: 'cm', uid: 'u1' },
      type: 'Warning',
      reason: 'Failed',
      source: { component: 'agent-deploy' },
      firstTimestamp: '2026-01-02T03:04:05.678Z',
      count: 1,
    });
  });
});
