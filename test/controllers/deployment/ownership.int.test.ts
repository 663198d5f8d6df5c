// Scenarios 5 and 6: adoption, name conflicts, two resources for one deployment, and a crash between
// the create call and the write of its id.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import {
  agentDeployment,
  apply,
  emulatorState,
  eventsOf,
  getCr,
  setUp,
  waitFor,
  warnings,
} from './support.ts';

const spec = (name?: string, extra: Record<string, unknown> = {}) => ({
  ...(name ? { name } : {}),
  source: 'internal_docker',
  sourceRevisionConfig: { imageUri: 'agent:1' },
  ...extra,
});
type Condition = { type: string; status: string; reason: string; message: string };
const condition = (cr: { status: { conditions: Condition[] } }, type: string) =>
  cr.status.conditions.find((c) => c.type === type)!;

async function createOnService(emu: RunningEmulator, name: string) {
  const res = await fetch(`${emu.url}/v2/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'dev-key' },
    body: JSON.stringify({
      name,
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: 'other:1' },
      secrets: [],
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

describe('Deployment ownership', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('owner'));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace] });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('does not take over an existing deployment without spec.adopt, and does with it', async () => {
    const existing = await createOnService(emu, 'pre-existing');
    await apply(namespace, agentDeployment('pre-existing', spec()));
    await waitFor(namespace, 'pre-existing', 'condition=Stalled');
    let cr = await getCr(namespace, 'pre-existing');
    expect(condition(cr, 'Stalled')).toMatchObject({ reason: 'AlreadyExists' });
    expect(condition(cr, 'Stalled').message).toContain('spec.adopt');
    expect(warnings(operator.logs, `${namespace}/pre-existing`)).toContainEqual(
      expect.objectContaining({ reason: 'AlreadyExists' }),
    );
    expect(cr.status.deploymentId).toBeUndefined();
    // Stalled means no retrying: its own writes must not wake it into another create attempt.
    const posts = async () => (await emulatorState(emu)).calls['POST /v2/deployments'] ?? 0;
    const settled = await posts();
    await sleep(4000);
    expect(await posts()).toBe(settled);

    await apply(namespace, agentDeployment('pre-existing', spec(undefined, { adopt: true })));
    await waitFor(namespace, 'pre-existing', 'condition=Ready');
    cr = await getCr(namespace, 'pre-existing');
    expect(cr.status.deploymentId).toBe(existing.id);
    const state = await emulatorState(emu);
    expect(state.deployments.filter((d) => d.name === 'pre-existing')).toHaveLength(1);
    // Adopted, then converged to the spec.
    expect(
      (
        state.deployments.find((d) => d.name === 'pre-existing') as unknown as {
          source_revision_config: { image_uri: string };
        }
      ).source_revision_config.image_uri,
    ).toBe('agent:1');
  });

  it('stalls the later of two resources naming one deployment with Conflict', async () => {
    await apply(namespace, agentDeployment('first', spec('shared-name')));
    await waitFor(namespace, 'first', 'condition=Ready');
    await apply(namespace, agentDeployment('second', spec('shared-name', { adopt: true })));
    await waitFor(namespace, 'second', 'condition=Stalled');
    const second = await getCr(namespace, 'second');
    expect(condition(second, 'Stalled')).toMatchObject({ reason: 'Conflict' });
    expect(condition(second, 'Stalled').message).toContain(`${namespace}/first`);
    expect(warnings(operator.logs, `${namespace}/second`)).toContainEqual(
      expect.objectContaining({ reason: 'Conflict', message: expect.stringContaining(`${namespace}/first`) }),
    );
    expect((await emulatorState(emu)).deployments.filter((d) => d.name === 'shared-name')).toHaveLength(1);
  });

  it('creates exactly one deployment when killed between the create call and the write of its id', async () => {
    // The create is answered 3 s late; the operator dies while it waits.
    await fetch(`${emu.adminUrl}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency_ms: 3000, paths: ['POST /v2/deployments'] }),
    });
    await apply(namespace, agentDeployment('crashy', spec()));
    await waitFor(
      namespace,
      'crashy',
      'jsonpath={.metadata.annotations.deploy\\.agents\\.dev/create-pending}',
    );
    await operator.kill('SIGKILL');
    await expect
      .poll(async () => (await emulatorState(emu)).deployments.filter((d) => d.name === 'crashy').length, {
        timeout: 10_000,
      })
      .toBe(1);
    await fetch(`${emu.adminUrl}/_emulator/faults`, { method: 'DELETE' });
    const cr = await getCr(namespace, 'crashy');
    expect(cr.metadata.annotations['deploy.agents.dev/deployment-id']).toBeUndefined(); // the id was never written

    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace] });
    await waitFor(namespace, 'crashy', 'condition=Ready');
    const state = await emulatorState(emu);
    const crashy = state.deployments.filter((d) => d.name === 'crashy');
    expect(crashy).toHaveLength(1);
    expect((await getCr(namespace, 'crashy')).status.deploymentId).toBe(crashy[0]!.id);
  });

  it('keeps its create-pending marker when a create is answered with a body that breaks the contract', async () => {
    // The service makes the deployment, but the 201 arrives garbled: the operator cannot tell what it made.
    await fetch(`${emu.adminUrl}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ garble_rate: 1, paths: ['POST /v2/deployments'] }),
    });
    try {
      await apply(namespace, agentDeployment('garbled', spec()));
      // The marker survives the broken answer, so the next reconcile looks the name up and takes what it
      // made instead of creating a second one.
      await waitFor(namespace, 'garbled', 'condition=Ready');
      const state = await emulatorState(emu);
      const made = state.deployments.filter((d) => d.name === 'garbled');
      expect(made).toHaveLength(1);
      const cr = await getCr(namespace, 'garbled');
      expect(cr.status.deploymentId).toBe(made[0]!.id);
      expect(cr.metadata.annotations['deploy.agents.dev/create-pending']).toBeUndefined();
      const adopted = await eventsOf(namespace, 'garbled', 'reason=Adopted');
      expect(adopted.map((e) => e.message).join('\n')).toContain('an earlier create of this resource');
    } finally {
      await fetch(`${emu.adminUrl}/_emulator/faults`, { method: 'DELETE' });
    }
  });
});
