import { describe, expect, it } from 'vitest';
import type { ListenerResource } from '../../../src/api/listener.ts';
import { planListener } from '../../../src/controllers/listener/planner.ts';
import type { Listener } from '../../../src/service/wire.ts';

const resource = (spec: ListenerResource['spec']): ListenerResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Listener',
  metadata: { name: 'cluster-a' },
  spec,
});
const listener = (over: Partial<Listener> = {}): Listener => ({
  id: 'l1',
  tenant_id: 't',
  compute_type: 'k8s',
  compute_id: 'cluster-a',
  compute_config: { k8s_namespaces: ['a'] },
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  version: '1',
  ...over,
});

const table = [
  {
    name: 'none found, register: create',
    spec: { computeType: 'k8s', register: true },
    observed: {},
    want: { action: 'create' },
  },
  {
    name: 'none found, not registering: NotFound, not stalled',
    spec: { computeType: 'k8s' },
    observed: {},
    want: { action: 'cannot', reason: 'NotFound', stalled: false },
  },
  {
    name: 'spec.listenerId unknown to the service: NotFound',
    spec: { computeType: 'k8s', listenerId: 'lx' },
    observed: { missingId: 'lx' },
    want: { action: 'cannot', reason: 'NotFound', stalled: false },
  },
  {
    name: 'compute_id taken and not found: InvalidSpec, stalled',
    spec: { computeType: 'k8s', register: true },
    observed: { nameTaken: 'taken' },
    want: { action: 'cannot', reason: 'InvalidSpec', stalled: true },
  },
  {
    name: 'bound by id with another compute_id than the spec names: InvalidSpec',
    spec: { computeType: 'k8s', computeId: 'cluster-b' },
    observed: { listener: listener() },
    want: { action: 'cannot', reason: 'InvalidSpec', stalled: true },
  },
  {
    name: 'registered with other namespaces: patch computeConfig',
    spec: { computeType: 'k8s', register: true, computeConfig: { k8sNamespaces: ['b'] } },
    observed: { listener: listener() },
    want: { action: 'patch', fields: ['computeConfig'] },
  },
  {
    name: 'bound only (not registered): never patched',
    spec: { computeType: 'k8s', computeConfig: { k8sNamespaces: ['b'] } },
    observed: { listener: listener() },
    want: { action: 'nothing' },
  },
  {
    name: 'observed, register and other namespaces: observe, never patch',
    spec: {
      computeType: 'k8s',
      register: true,
      managementPolicy: 'Observe',
      computeConfig: { k8sNamespaces: ['b'] },
    },
    observed: { listener: listener() },
    want: { action: 'observe' },
  },
  {
    name: 'observed with register, none found: NotFound, never create',
    spec: { computeType: 'k8s', register: true, managementPolicy: 'Observe' },
    observed: {},
    want: { action: 'cannot', reason: 'NotFound', stalled: false },
  },
  {
    name: 'observed, spec.listenerId unknown to the service: NotFound',
    spec: { computeType: 'k8s', listenerId: 'lx', managementPolicy: 'Observe' },
    observed: { missingId: 'lx' },
    want: { action: 'cannot', reason: 'NotFound', stalled: false },
  },
  {
    name: 'observed by id with another compute_id than the spec names: InvalidSpec',
    spec: { computeType: 'k8s', computeId: 'cluster-b', managementPolicy: 'Observe' },
    observed: { listener: listener() },
    want: { action: 'cannot', reason: 'InvalidSpec', stalled: true },
  },
] as const;

describe('planListener', () => {
  for (const row of table)
    it(row.name, () => {
      const plan = planListener(resource(row.spec as ListenerResource['spec']), undefined, row.observed);
      expect({
        action: plan.action,
        ...(plan.action === 'cannot' ? { reason: plan.problem.reason, stalled: plan.problem.stalled } : {}),
        ...(plan.action === 'patch' ? { fields: plan.fields } : {}),
      }).toEqual(row.want);
    });
});
