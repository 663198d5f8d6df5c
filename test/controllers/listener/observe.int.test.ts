// Listener with spec.managementPolicy: Observe: found by listenerId or computeId and mirrored into
// status, never registered or patched (whatever spec.register and computeConfig say), across resyncs and
// drift on the service; NotFound until the listener appears; switching to Manage and back.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, defaultSeedIds, type Seed } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { onService, setUp } from '../deployment/support.ts';
import {
  apiVersion,
  applyResource,
  callCount,
  conditionsOf,
  getResource,
  serviceState,
  waitForResource,
} from '../resources.ts';

const POST = 'POST /v2/listeners';
const PATCH = 'PATCH /v2/listeners/{listener_id}';
const resync = 2000;
const seededId = randomUUID();
const seed: Seed = {
  ...defaultSeed,
  listeners: [
    ...defaultSeed.listeners,
    {
      id: seededId,
      tenant_id: defaultSeedIds.tenant,
      compute_type: 'k8s',
      compute_id: 'observed-cluster',
      compute_config: { k8s_namespaces: ['default'] },
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
      version: '0.2.0',
    },
  ],
};
const syncedReason = (reason: string) =>
  `jsonpath={.status.conditions[?(@.type=="Synced")].reason}=${reason}`;

describe('Listener with spec.managementPolicy: Observe', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const listener = (name: string, spec: object) => ({
    apiVersion,
    kind: 'Listener',
    metadata: { name, labels: { test: namespace } },
    spec,
  });
  const reads = async () =>
    (await callCount(emu, 'GET /v2/listeners')) + (await callCount(emu, 'GET /v2/listeners/{listener_id}'));
  const writes = async () => (await callCount(emu, POST)) + (await callCount(emu, PATCH));
  /** What a person does on the service directly (its UI or CLI): the test's own writes, counted. */
  const service = (method: string, path: string, body: object) =>
    onService<{ id: string; updated_at: string }>(emu, method, path, body);
  const serviceListener = async (computeId: string) =>
    (await serviceState(emu)).listeners.find((l) => l.compute_id === computeId);

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('listener-observe', { mode: 'self-hosted', seed }));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: `${resync / 1000}s` });
  });
  afterAll(async () => {
    await operator.kill();
    await kubectl(['delete', 'listeners.deploy.agents.dev', '-l', `test=${namespace}`, '--ignore-not-found']);
    await emu.close();
  });

  it('mirrors a listener found by computeId or listenerId, and never registers or patches it', async () => {
    const byComputeId = `${namespace}-by-compute-id`;
    const byId = `${namespace}-by-id`;
    const asked = {
      register: true,
      managementPolicy: 'Observe',
      computeConfig: { k8sNamespaces: ['other'] },
    };
    await applyResource(listener(byComputeId, { ...asked, computeId: 'observed-cluster' }));
    await applyResource(listener(byId, { ...asked, listenerId: seededId }));
    for (const name of [byComputeId, byId]) {
      await waitForResource('listeners', name, syncedReason('Observing'));
      const cr = await getResource('listeners', name);
      expect(cr.status).toMatchObject({ listenerId: seededId, version: '0.2.0', observedGeneration: 1 });
      const conditions = conditionsOf(cr);
      expect(conditions.Ready).toMatchObject({ status: 'True' });
      expect(conditions.Synced).toMatchObject({ status: 'True', reason: 'Observing' });
      expect(conditions.Synced!.message).toContain(seededId);
    }

    // Drift on the service is mirrored (its updatedAt), never corrected; resyncs read, and write nothing.
    const drifted = await service('PATCH', `/v2/listeners/${seededId}`, {
      compute_config: { k8s_namespaces: ['drifted'] },
    });
    await waitForResource('listeners', byComputeId, `jsonpath={.status.updatedAt}=${drifted.updated_at}`);
    const readsBefore = await reads();
    await sleep(3 * resync);
    expect(await reads()).toBeGreaterThan(readsBefore);
    expect(await callCount(emu, POST)).toBe(0);
    expect(await callCount(emu, PATCH)).toBe(1); // the drift above
    expect((await serviceListener('observed-cluster'))?.compute_config.k8s_namespaces).toEqual(['drifted']);
  });

  it('says NotFound while the service has no such listener, never registers it, and picks it up', async () => {
    const name = `${namespace}-absent`;
    const before = await writes();
    await applyResource(listener(name, { register: true, managementPolicy: 'Observe' }));
    await waitForResource('listeners', name, syncedReason('NotFound'));
    const conditions = conditionsOf(await getResource('listeners', name));
    expect(conditions.Ready).toMatchObject({ status: 'False', reason: 'NotFound' });
    expect(conditions.Stalled).toMatchObject({ status: 'False' });
    expect(conditions.Synced!.message).toContain('spec.managementPolicy: Observe');
    await sleep(2 * resync);
    expect(await writes()).toBe(before);
    expect(await serviceListener(name)).toBeUndefined();

    const made = await service('POST', '/v2/listeners', {
      compute_type: 'k8s',
      compute_id: name,
      compute_config: { k8s_namespaces: null },
    });
    await waitForResource('listeners', name, syncedReason('Observing'), undefined, 20);
    expect((await getResource('listeners', name)).status.listenerId).toBe(made.id);
    expect(await writes()).toBe(before + 1); // the register above
  });

  it('stops patching when switched to Observe, and patches again when switched back to Manage', async () => {
    const name = `${namespace}-switched`;
    const managed = { register: true, computeConfig: { k8sNamespaces: ['a'] } };
    await applyResource(listener(name, managed));
    await waitForResource('listeners', name, syncedReason('Synced'));
    const before = await writes();

    const wider = { register: true, computeConfig: { k8sNamespaces: ['a', 'b'] } };
    await applyResource(listener(name, { ...wider, managementPolicy: 'Observe' }));
    await waitForResource('listeners', name, syncedReason('Observing'));
    await sleep(2 * resync);
    expect(await writes()).toBe(before);
    expect((await serviceListener(name))?.compute_config.k8s_namespaces).toEqual(['a']);

    await applyResource(listener(name, { ...wider, managementPolicy: 'Manage' }));
    await waitForResource('listeners', name, syncedReason('Synced'));
    expect((await serviceListener(name))?.compute_config.k8s_namespaces).toEqual(['a', 'b']);
    expect(await writes()).toBe(before + 1); // one PATCH, once managed again
  });
});
