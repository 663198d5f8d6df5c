// Scenarios 7 and 8: deletion policies, and the paused annotation.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorState, getCr, setUp, waitFor } from './support.ts';

const spec = (extra: Record<string, unknown> = {}) => ({
  source: 'internal_docker',
  sourceRevisionConfig: { imageUri: 'agent:1' },
  ...extra,
});
const totalCalls = async (emu: RunningEmulator) =>
  Object.values((await emulatorState(emu)).calls).reduce((a, b) => a + b, 0);

describe('Deployment deletion and pausing', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('delete'));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '2s' });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('keeps the service deployment with deletionPolicy Orphan (no finalizer)', async () => {
    await apply(namespace, agentDeployment('orphan', spec()));
    await waitFor(namespace, 'orphan', 'condition=Ready');
    expect((await getCr(namespace, 'orphan')).metadata.finalizers).toBeUndefined();
    await kubectl([
      'delete',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      'orphan',
      '--wait=true',
      '--timeout=30s',
    ]);
    expect((await emulatorState(emu)).deployments.map((d) => d.name)).toContain('orphan');
  });

  it('deletes the service deployment with deletionPolicy Delete, then removes its finalizer', async () => {
    await apply(namespace, agentDeployment('doomed', spec({ deletionPolicy: 'Delete' })));
    await waitFor(namespace, 'doomed', 'condition=Ready');
    expect((await getCr(namespace, 'doomed')).metadata.finalizers).toEqual(['deploy.agents.dev/finalizer']);
    await kubectl([
      'delete',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      'doomed',
      '--wait=true',
      '--timeout=30s',
    ]);
    await expect
      .poll(async () => (await emulatorState(emu)).deployments.map((d) => d.name), { timeout: 10_000 })
      .not.toContain('doomed');
    await expect(
      kubectl(['get', '-n', namespace, 'deployments.deploy.agents.dev', 'doomed']),
    ).rejects.toThrow(/NotFound/);
  });

  it('makes no service calls for a paused resource, and resumes when unpaused', async () => {
    const paused = {
      ...agentDeployment('sleepy', spec()),
      metadata: { name: 'sleepy', annotations: { 'deploy.agents.dev/paused': 'true' } },
    };
    await apply(namespace, paused);
    await waitFor(namespace, 'sleepy', 'condition=Synced=False');
    const cr = await getCr(namespace, 'sleepy');
    expect(cr.status.conditions.find((c: { type: string }) => c.type === 'Synced').reason).toBe(
      'ReconcilePaused',
    );
    // Quiet: the other resources of this file are settled; only resync reads (of them) may happen.
    const before = await emulatorState(emu);
    await sleep(5000);
    const after = await emulatorState(emu);
    expect(after.deployments.map((d) => d.name)).not.toContain('sleepy');
    expect(after.calls['POST /v2/deployments'] ?? 0).toBe(before.calls['POST /v2/deployments'] ?? 0);

    await kubectl([
      'annotate',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      'sleepy',
      'deploy.agents.dev/paused-',
    ]);
    await waitFor(namespace, 'sleepy', 'condition=Ready');
    expect((await emulatorState(emu)).deployments.map((d) => d.name)).toContain('sleepy');
    expect(await totalCalls(emu)).toBeGreaterThan(0);
  });

  const annotate = (name: string, annotation: string) =>
    kubectl(['annotate', '-n', namespace, 'deployments.deploy.agents.dev', name, annotation]);

  it('does not claim an edit made while paused: observedGeneration stays, kubectl wait does not pass', async () => {
    await apply(namespace, agentDeployment('held', spec()));
    await waitFor(namespace, 'held', 'condition=Ready');
    await annotate('held', 'deploy.agents.dev/paused=true');
    await waitFor(namespace, 'held', 'condition=Synced=False');
    const patches = async () =>
      (await emulatorState(emu)).calls['PATCH /v2/deployments/{deployment_id}'] ?? 0;
    const patchesBefore = await patches();

    await apply(namespace, {
      ...agentDeployment('held', spec({ sourceRevisionConfig: { imageUri: 'agent:2' } })),
      metadata: { name: 'held', annotations: { 'deploy.agents.dev/paused': 'true' } },
    });
    await expect.poll(async () => (await getCr(namespace, 'held')).metadata.generation).toBe(2);
    // Absence is the claim: give the paused reconcile of generation 2 and a resync (2 s) time to act.
    await sleep(3000);
    const cr = await getCr(namespace, 'held');
    expect(cr.status.observedGeneration).toBe(1);
    const byType = Object.fromEntries(cr.status.conditions.map((c: { type: string }) => [c.type, c]));
    expect(byType.Synced).toMatchObject({
      status: 'False',
      reason: 'ReconcilePaused',
      observedGeneration: 1,
    });
    expect(byType.Ready).toMatchObject({ status: 'True', observedGeneration: 1 });
    // kubectl wait compares the condition's observedGeneration with the generation: an unapplied change is not Ready.
    await expect(waitFor(namespace, 'held', 'condition=Ready', 3)).rejects.toThrow(/timed out/);
    const { stdout: table } = await kubectl([
      'get',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      'held',
    ]);
    expect(table).toMatch(/SYNCED/);
    expect(table).toMatch(/ReconcilePaused/);
    expect(await patches()).toBe(patchesBefore);

    await annotate('held', 'deploy.agents.dev/paused-');
    await waitFor(namespace, 'held', 'jsonpath={.status.observedGeneration}=2');
    await waitFor(namespace, 'held', 'condition=Ready');
    expect(await patches()).toBe(patchesBefore + 1);
  });
});

describe('asynchronous deletion on the service', () => {
  // A long step, moved by hand: the service sits in its deletion states for as long as the test needs.
  const step = 60_000;
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const start = () => startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '2s' });
  const advance = (ms: number) =>
    fetch(`${emu.adminUrl}/_emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_ms: ms }),
    });
  const serviceStatus = async (name: string) => {
    const res = await fetch(`${emu.url}/v2/deployments?limit=100&name_contains=${name}`, {
      headers: { 'x-api-key': 'dev-key' },
    });
    const page = (await res.json()) as { resources: { name: string; status: string }[] };
    return page.resources.find((d) => d.name === name)?.status ?? 'gone';
  };
  const deletes = async () => (await emulatorState(emu)).calls['DELETE /v2/deployments/{deployment_id}'] ?? 0;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('async-delete', { stepMs: step }));
    operator = start();
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('keeps the finalizer until the deployment is gone, and a restart mid-deletion waits, not deletes again', async () => {
    await apply(namespace, agentDeployment('slow', spec({ deletionPolicy: 'Delete' })));
    await expect.poll(() => serviceStatus('slow'), { timeout: 20_000 }).not.toBe('gone');
    await advance(10 * step); // the first revision deploys
    await waitFor(namespace, 'slow', 'condition=Ready');
    await kubectl(['delete', '-n', namespace, 'deployments.deploy.agents.dev', 'slow', '--wait=false']);
    await expect.poll(() => serviceStatus('slow'), { timeout: 20_000 }).toBe('AWAITING_DELETE');
    expect(await deletes()).toBe(1);

    // The resource stays, held by its finalizer, while the service is still deleting.
    await operator.kill('SIGKILL');
    operator = start();
    await sleep(4000);
    const cr = await getCr(namespace, 'slow');
    expect(cr.metadata.finalizers).toEqual(['deploy.agents.dev/finalizer']);
    expect(await deletes()).toBe(1); // the restarted operator waits; it does not delete again

    await advance(3 * step); // every deletion state passes
    await expect.poll(() => serviceStatus('slow'), { timeout: 10_000 }).toBe('gone');
    await kubectl([
      'wait',
      '-n',
      namespace,
      'deployments.deploy.agents.dev/slow',
      '--for=delete',
      '--timeout=60s',
    ]);
    expect(await deletes()).toBe(1);
  });
});
