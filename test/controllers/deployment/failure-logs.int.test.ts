// Why a revision failed, where people look: the log line in the Stalled/Ready message, the one Warning
// Event and the warn line; read once per failure (counted by the emulator), not on each reconcile nor
// after a restart; secret values redacted; a log the service will not give leaves today's message.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/controlplane/ports.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
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

const BUILD_LOGS = 'POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs';
const DEPLOY_LOGS = 'POST /v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs';

const conditionOf = (cr: { status: { conditions: { type: string; message: string }[] } }, type: string) =>
  cr.status.conditions.find((c) => c.type === type)!;

describe('Deployment failure logs', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  let healthPort: number;
  const canary = `canary-${randomBytes(6).toString('hex')}`;

  const start = () =>
    startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '1s', healthPort });
  beforeAll(async () => {
    ({ namespace, emu } = await setUp('faillogs', { stepMs: 20 }));
    healthPort = await freePort();
    operator = start();
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  const calls = async (endpoint: string) => (await emulatorState(emu)).calls[endpoint] ?? 0;
  /** Reconciles of Deployments this operator process has finished. */
  const reconciles = async () =>
    (await operator.metrics().catch(() => undefined))
      ?.split('\n')
      .filter((l) => l.startsWith('controller_runtime_reconcile_total{controller="deployment"'))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0) ?? -1;
  /** Wakes the resource without changing its spec, and waits until the operator has reconciled again. */
  async function poke(name: string, n: number) {
    // A process just started serves its metrics a moment later.
    await expect.poll(reconciles, { timeout: 20_000 }).toBeGreaterThanOrEqual(0);
    const before = await reconciles();
    await kubectl([
      'annotate',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      name,
      `poke=${n}`,
      '--overwrite',
    ]);
    await expect.poll(reconciles, { timeout: 20_000 }).toBeGreaterThan(before);
  }

  it('puts the failing step and error line in the conditions, the one Warning and the warn line; read once', async () => {
    await apply(
      namespace,
      agentDeployment('broken', {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:fail-build' },
      }),
    );
    await waitFor(namespace, 'broken', 'condition=Stalled');
    const cr = await getCr(namespace, 'broken');
    const revision = cr.status.latestRevision.id;
    const expected = `revision ${revision} failed at "pip install -r requirements.txt": ERROR: No matching distribution found for foo==9.9`;
    expect(conditionOf(cr, 'Stalled').message).toBe(expected);
    expect(conditionOf(cr, 'Ready').message).toBe(expected);
    await expect
      .poll(async () =>
        (await eventsOf(namespace, 'broken', 'type=Warning')).map((e) => [e.reason, e.message]),
      )
      .toEqual([['BuildFailed', expected]]);
    expect(warnings(operator.logs, `${namespace}/broken`)).toContainEqual(
      expect.objectContaining({ reason: 'BuildFailed', message: expected }),
    );
    expect(await calls(BUILD_LOGS)).toBe(1);

    // Further reconciles (and a restart, which finds the message in status) do not read it again.
    for (const n of [1, 2, 3]) await poke('broken', n);
    await operator.kill();
    operator = start();
    await poke('broken', 4);
    expect(await calls(BUILD_LOGS)).toBe(1);
    expect(conditionOf(await getCr(namespace, 'broken'), 'Stalled').message).toBe(expected);
    expect(await eventsOf(namespace, 'broken', 'type=Warning')).toHaveLength(1);
  });

  it('redacts the value of its own secret that a log line shows (canary)', async () => {
    await kubectl([
      'create',
      'secret',
      'generic',
      'agent-keys',
      '-n',
      namespace,
      `--from-literal=TOKEN=${canary}`,
    ]);
    const before = await calls(DEPLOY_LOGS);
    await apply(
      namespace,
      agentDeployment('leaky', {
        source: 'internal_docker',
        // The crash names what it failed to load: here an image whose name carries the secret's value.
        sourceRevisionConfig: { imageUri: `registry.example/${canary}/agent:fail-deploy` },
        secretsFrom: [{ secretRef: { name: 'agent-keys' } }],
      }),
    );
    await waitFor(namespace, 'leaky', 'condition=Stalled');
    const cr = await getCr(namespace, 'leaky');
    const stalled = conditionOf(cr, 'Stalled').message;
    expect(stalled).toBe(
      `revision ${cr.status.latestRevision.id} failed at "langgraph-api serve --port 8000": ImportError: cannot load graph 'agent' from registry.example/[redacted]/agent:fail-deploy: No module named 'agent_tools'`,
    );
    await expect.poll(async () => (await eventsOf(namespace, 'leaky', 'type=Warning')).length).toBe(1);
    const everywhere = [
      JSON.stringify(cr.status),
      JSON.stringify(await eventsOf(namespace, 'leaky')),
      operator.logs.join('\n'),
    ].join('\n');
    expect(everywhere).not.toContain(canary);
    expect(await calls(DEPLOY_LOGS)).toBe(before + 1);
  });

  it('keeps today’s message when the service will not give the log, at the cost of one call', async () => {
    for (const status of [404, 503]) {
      await fetch(`${emu.adminUrl}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error_rate: 1, statuses: [status], paths: [BUILD_LOGS] }),
      });
      const name = `nologs-${status}`;
      const before = await calls(BUILD_LOGS);
      await apply(
        namespace,
        agentDeployment(name, {
          source: 'internal_docker',
          sourceRevisionConfig: { imageUri: `agent-${status}:fail-build` },
        }),
      );
      await waitFor(namespace, name, 'condition=Stalled');
      const cr = await getCr(namespace, name);
      expect(conditionOf(cr, 'Stalled').message).toBe(
        `revision ${cr.status.latestRevision.id} is BUILD_FAILED`,
      );
      for (const n of [1, 2]) await poke(name, n);
      expect(await calls(BUILD_LOGS)).toBe(before + 1);
    }
    await fetch(`${emu.adminUrl}/_emulator/faults`, { method: 'DELETE' });
  });
});
