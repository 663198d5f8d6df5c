// Listener resources: bound by id or by compute_id across pages, registered once, compute_config kept in
// sync with exactly the PATCHes needed, a plan's refusal Stalled without a retry loop, and a Deployment
// woken by its Listener becoming Ready.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, defaultSeedIds, defaultSeedKeys, type Seed } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, getCr, setUp, waitFor } from '../deployment/support.ts';
import {
  apiVersion,
  applyResource,
  callCount,
  conditionsOf,
  example,
  getResource,
  serviceState,
  stalledWith,
  totalCalls,
  waitForResource,
} from '../resources.ts';

const t0 = '2025-01-01T00:00:00Z';
const seeded = (computeId: string, id = randomUUID()) => ({
  id,
  tenant_id: defaultSeedIds.tenant,
  compute_type: 'k8s',
  compute_id: computeId,
  compute_config: { k8s_namespaces: ['default'] },
  created_at: t0,
  updated_at: t0,
  version: '0.2.0',
});
const deepId = randomUUID();
// The emulator lists newest first, so the first seeded listener is on the last of three pages.
const seed: Seed = {
  ...defaultSeed,
  listeners: [
    seeded('deep-cluster', deepId),
    ...defaultSeed.listeners,
    ...Array.from({ length: 210 }, (_, i) => seeded(`filler-${i}`)),
  ],
};

const POST = 'POST /v2/listeners';
const PATCH = 'PATCH /v2/listeners/{listener_id}';

describe('Listener controller', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const listener = (name: string, spec: object) => ({
    apiVersion,
    kind: 'Listener',
    metadata: { name, labels: { test: namespace } },
    spec,
  });
  const serviceListeners = async (computeId: string) =>
    (await serviceState(emu)).listeners.filter((l) => l.compute_id === computeId);

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('listener', { mode: 'self-hosted', seed }));
    // A long resync: nothing below may be explained by a timer.
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '1h' });
  });
  afterAll(async () => {
    await operator.kill();
    await kubectl(['delete', 'listeners.deploy.agents.dev', '-l', `test=${namespace}`, '--ignore-not-found']);
    await emu.close();
  });

  it('binds by listenerId, and sends no PATCH when compute_config already matches', async () => {
    const name = `${namespace}-by-id`;
    await applyResource(
      listener(name, {
        listenerId: defaultSeedIds.listener,
        register: true,
        computeConfig: { k8sNamespaces: ['default', 'agents'] },
      }),
    );
    await waitForResource('listeners', name, 'condition=Ready');
    const cr = await getResource('listeners', name);
    expect(cr.status).toMatchObject({
      listenerId: defaultSeedIds.listener,
      version: '0.1.0',
      createdAt: t0,
      updatedAt: t0,
      observedGeneration: 1,
    });
    expect(Object.values(conditionsOf(cr)).map((c) => `${c.status}`)).toEqual([
      'True',
      'True',
      'False',
      'False',
    ]);
    expect(await callCount(emu, PATCH)).toBe(0);
    expect(await callCount(emu, POST)).toBe(0);
  });

  it('binds by computeId across every page of the list', async () => {
    const name = `${namespace}-deep`;
    await applyResource(listener(name, { computeId: 'deep-cluster' }));
    await waitForResource('listeners', name, 'condition=Ready');
    const cr = await getResource('listeners', name);
    expect(cr.status).toMatchObject({ listenerId: deepId, version: '0.2.0' });
    expect(await callCount(emu, 'GET /v2/listeners')).toBeGreaterThanOrEqual(3);
  });

  it('is NotFound (not Stalled) when nothing matches and register is false', async () => {
    const name = `${namespace}-missing`;
    await applyResource(listener(name, {}));
    await waitForResource(
      'listeners',
      name,
      'jsonpath={.status.conditions[?(@.type=="Ready")].reason}=NotFound',
    );
    const conditions = conditionsOf(await getResource('listeners', name));
    expect(conditions.Ready!.status).toBe('False');
    expect(conditions.Stalled!.status).toBe('False');
    expect(conditions.Ready!.message).toContain(`compute_id ${name}`);
    // Our own status write wakes it once more; that reconcile reuses what it learned, so no calls follow.
    const before = await totalCalls(emu);
    await sleep(2000);
    expect(await totalCalls(emu)).toBe(before);
  });

  it('registers exactly once, then changes compute_config with exactly one PATCH and none when equal', async () => {
    const name = `${namespace}-new`;
    const spec = { register: true, computeConfig: { k8sNamespaces: ['a'] } };
    await applyResource(listener(name, spec));
    await waitForResource('listeners', name, 'condition=Ready');
    let service = await serviceListeners(name);
    expect(service).toHaveLength(1);
    expect(service[0]!.compute_config.k8s_namespaces).toEqual(['a']);
    expect((await getResource('listeners', name)).status.listenerId).toBe(service[0]!.id);
    expect(await callCount(emu, POST)).toBe(1);

    // Woken again (an annotation) and after an operator restart: still one listener, one POST.
    await kubectl(['annotate', 'listeners.deploy.agents.dev', name, 'touched=1']);
    await operator.kill();
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '1h' });
    await operator.waitForLog(/"controller":"listener".*caches synced/);
    await sleep(1500);
    expect(await callCount(emu, POST)).toBe(1);
    expect(await serviceListeners(name)).toHaveLength(1);

    await applyResource(listener(name, { ...spec, computeConfig: { k8sNamespaces: ['a', 'b'] } }));
    await waitForResource('listeners', name, 'jsonpath={.status.observedGeneration}=2');
    service = await serviceListeners(name);
    expect(service[0]!.compute_config.k8s_namespaces).toEqual(['a', 'b']);
    expect(await callCount(emu, PATCH)).toBe(1);
    expect(conditionsOf(await getResource('listeners', name)).Ready!.status).toBe('True');

    // A new generation whose compute_config the service already holds: looked at, not PATCHed.
    await applyResource(
      listener(name, { ...spec, computeId: name, computeConfig: { k8sNamespaces: ['a', 'b'] } }),
    );
    await waitForResource('listeners', name, 'jsonpath={.status.observedGeneration}=3');
    expect(await callCount(emu, PATCH)).toBe(1);
    expect(await callCount(emu, POST)).toBe(1);
  });

  it('examples/listener.yaml registers and becomes Ready', async () => {
    const manifest = example('listener.yaml');
    try {
      await applyResource(manifest);
      await waitForResource('listeners', manifest.metadata.name, 'condition=Ready');
      expect(await serviceListeners('sandbox-cluster')).toHaveLength(1);
    } finally {
      await kubectl(['delete', 'listeners.deploy.agents.dev', manifest.metadata.name, '--ignore-not-found']);
    }
  });

  it('wakes a Deployment waiting for it (ListenerNotReady) by its own change, not by a timer', async () => {
    const listenerName = `${namespace}-edge`;
    await apply(
      namespace,
      agentDeployment('edge-app', {
        source: 'external_docker',
        sourceRevisionConfig: { imageUri: 'registry.local/agent:1' },
        listenerRef: { name: listenerName },
      }),
    );
    await waitFor(
      namespace,
      'edge-app',
      'jsonpath={.status.conditions[?(@.type=="Synced")].reason}=ListenerNotReady',
    );
    expect(conditionsOf(await getCr(namespace, 'edge-app')).Synced!.status).toBe('False');
    expect(await callCount(emu, 'POST /v2/deployments')).toBe(0);

    await applyResource(
      listener(listenerName, { register: true, computeConfig: { k8sNamespaces: ['agents'] } }),
    );
    await waitForResource('listeners', listenerName, 'condition=Ready');
    await waitFor(namespace, 'edge-app', 'condition=Ready', 30);
    const listenerId = (await getResource('listeners', listenerName)).status.listenerId;
    const deployment = (await serviceState(emu)).deployments.find((d) => d.name === 'edge-app')!;
    expect(deployment.source_config.listener_id).toBe(listenerId);
  });
});

describe('Listener controller with a plan that may not manage listeners', () => {
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const name = `forbidden-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    ({ emu } = await setUp('listener-plan', { mode: 'self-hosted' }));
    operator = startOperator({
      serviceUrl: emu.url,
      apiKey: defaultSeedKeys.basicPlan,
      namespaces: ['unused'],
      resync: '1h',
    });
  });
  afterAll(async () => {
    await operator.kill();
    await kubectl(['delete', 'listeners.deploy.agents.dev', name, '--ignore-not-found']);
    await emu.close();
  });

  it('is Stalled Forbidden with the service words, with a bounded number of calls', async () => {
    await applyResource({ apiVersion, kind: 'Listener', metadata: { name }, spec: { register: true } });
    await waitForResource('listeners', name, stalledWith('Forbidden'));
    const cr = await getResource('listeners', name);
    const conditions = conditionsOf(cr);
    expect(conditions.Stalled!.status).toBe('True');
    expect(conditions.Stalled!.message).toContain('Your plan does not allow managing listeners');
    expect(conditions.Ready).toMatchObject({ status: 'False', reason: 'Forbidden' });
    expect(conditions.Reconciling!.status).toBe('False');
    expect(cr.status.listenerId).toBeUndefined();

    await sleep(10_000);
    const state = await serviceState(emu);
    expect(state.calls[POST]).toBe(1);
    expect(Object.values(state.calls).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3);
    const events = JSON.parse(
      (
        await kubectl([
          'get',
          'events',
          '-n',
          'default',
          '--field-selector',
          `involvedObject.name=${name}`,
          '-o',
          'json',
        ])
      ).stdout,
    ).items as { reason: string }[];
    expect(events.filter((e) => e.reason === 'Forbidden')).toHaveLength(1);
  });
});
