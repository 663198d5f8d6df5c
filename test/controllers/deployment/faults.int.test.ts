// Scenario 10: a storm of 5xx answers is ridden out with backoff (a bounded number of calls), and the
// resources become Ready once it ends.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorState, getCr, setUp, waitFor } from './support.ts';

const totalCalls = async (emu: RunningEmulator) =>
  Object.values((await emulatorState(emu)).calls).reduce((a, b) => a + b, 0);

describe('a 5xx storm', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('storm'));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace] });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('is ridden out with a bounded number of calls, then everything becomes Ready', async () => {
    await fetch(`${emu.adminUrl}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error_rate: 1, statuses: [500, 502, 503] }),
    });
    const names = ['storm-a', 'storm-b', 'storm-c'];
    for (const name of names)
      await apply(
        namespace,
        agentDeployment(name, { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'agent:1' } }),
      );
    await sleep(15_000);
    const during = await totalCalls(emu);
    // Without backoff a worker would make hundreds of calls a second; with it, a few dozen in 15 s.
    expect(during).toBeGreaterThan(3);
    expect(during).toBeLessThan(150);

    await fetch(`${emu.adminUrl}/_emulator/faults`, { method: 'DELETE' });
    for (const name of names) await waitFor(namespace, name, 'condition=Ready', 120);
    const state = await emulatorState(emu);
    for (const name of names) expect(state.deployments.filter((d) => d.name === name)).toHaveLength(1);
  });

  it('takes a 500 for trouble, not a refusal: never Stalled, and applied once it passes', async () => {
    const docker = (image: string) => ({
      source: 'internal_docker',
      sourceRevisionConfig: { imageUri: image },
    });
    await apply(namespace, agentDeployment('storm-patch', docker('agent:1')));
    await waitFor(namespace, 'storm-patch', 'condition=Ready');
    await fetch(`${emu.adminUrl}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error_rate: 1,
        statuses: [500],
        paths: ['PATCH /v2/deployments/{deployment_id}'],
      }),
    });
    await apply(namespace, agentDeployment('storm-patch', docker('agent:2')));
    await waitFor(namespace, 'storm-patch', 'condition=Synced=False');
    const cr = await getCr(namespace, 'storm-patch');
    const conditions = Object.fromEntries(
      cr.status.conditions.map((c: { type: string; status: string; reason: string }) => [
        c.type,
        `${c.status}/${c.reason}`,
      ]),
    );
    expect(conditions.Synced).toBe('False/ServiceError');
    expect(conditions.Stalled).toMatch(/^False/);

    await fetch(`${emu.adminUrl}/_emulator/faults`, { method: 'DELETE' });
    await expect
      .poll(
        async () =>
          (
            (await emulatorState(emu)).deployments.find((d) => d.name === 'storm-patch') as unknown as {
              source_revision_config: { image_uri: string };
            }
          ).source_revision_config.image_uri,
        { timeout: 60_000 },
      )
      .toBe('agent:2');
  });
});
