import { describe, expect, it } from 'vitest';
import type { ListenerResource } from '../../../src/api/listener.ts';
import {
  computeIdOf,
  configPatch,
  createRequest,
  identityProblem,
  observedStatus,
} from '../../../src/controllers/listener/desired.ts';
import type { Listener } from '../../../src/service/wire.ts';

const cr = (spec: Partial<ListenerResource['spec']>): ListenerResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Listener',
  metadata: { name: 'edge' },
  spec: { computeType: 'k8s', register: false, managementPolicy: 'Manage', ...spec },
});
const observed = (namespaces: string[] | null, computeId = 'edge'): Listener => ({
  id: 'dddddddd-0000-4000-8000-000000000001',
  compute_type: 'k8s',
  compute_id: computeId,
  compute_config: { k8s_namespaces: namespaces },
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-02T00:00:00Z',
  version: '0.1.0',
});

describe('listener mapping', () => {
  it('computeId defaults to metadata.name', () => {
    expect(computeIdOf(cr({}))).toBe('edge');
    expect(computeIdOf(cr({ computeId: 'prod-1' }))).toBe('prod-1');
  });

  it('creates with the spec compute_config, or an empty one', () => {
    expect(createRequest(cr({ computeConfig: { k8sNamespaces: ['a'] } }))).toEqual({
      compute_type: 'k8s',
      compute_id: 'edge',
      compute_config: { k8s_namespaces: ['a'] },
    });
    expect(createRequest(cr({})).compute_config).toEqual({ k8s_namespaces: null });
  });

  it('PATCHes compute_config only when registering, set, and different', () => {
    const spec = { register: true, computeConfig: { k8sNamespaces: ['a', 'b'] } };
    expect(configPatch(cr(spec), observed(['a']))).toEqual({
      compute_config: { k8s_namespaces: ['a', 'b'] },
    });
    expect(configPatch(cr(spec), observed(['a', 'b']))).toBeUndefined();
    expect(configPatch(cr({ ...spec, register: false }), observed(['a']))).toBeUndefined();
    expect(configPatch(cr({ register: true }), observed(['a']))).toBeUndefined();
    expect(configPatch(cr({ register: true, computeConfig: {} }), observed(null))).toBeUndefined();
    expect(configPatch(cr({ register: true, computeConfig: {} }), observed(['a']))).toEqual({
      compute_config: { k8s_namespaces: null },
    });
  });

  it('refuses a bound listener whose compute_id contradicts an explicit spec.computeId', () => {
    expect(identityProblem(cr({ computeId: 'other' }), observed(null))).toEqual({
      reason: 'InvalidSpec',
      message:
        'spec.computeId is other, but the bound listener dddddddd-0000-4000-8000-000000000001 has compute_id edge on the service',
      stalled: true,
    });
    expect(identityProblem(cr({ computeId: 'edge' }), observed(null))).toBeUndefined();
    expect(identityProblem(cr({}), observed(null, 'anything'))).toBeUndefined();
  });

  it('shows id, version and timestamps', () => {
    expect(observedStatus(observed(null))).toEqual({
      listenerId: 'dddddddd-0000-4000-8000-000000000001',
      version: '0.1.0',
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-02T00:00:00Z',
    });
  });
});
