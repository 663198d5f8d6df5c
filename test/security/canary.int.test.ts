// A canary secret value travels every path — create, rotation, a service error while a rotation is in
// flight, an operator killed and started again — and is then searched for everywhere the operator
// writes: its logs, Events, every resource's JSON (status and condition messages included) and /metrics.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.ts';
import { agentDeployment, apply, emulatorState, setUp, waitFor } from '../controllers/deployment/support.ts';
import { kubectl } from '../support/kube.ts';
import { type OperatorProcess, startOperator } from '../support/operator.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const setFaults = (emu: RunningEmulator, faults: object | null) =>
  fetch(`${emu.adminUrl}/_emulator/faults`, {
    method: faults ? 'POST' : 'DELETE',
    headers: { 'content-type': 'application/json' },
    ...(faults && { body: JSON.stringify(faults) }),
  });

describe('a canary secret value', () => {
  let namespace: string;
  let emu: RunningEmulator;
  const operators: OperatorProcess[] = [];
  const metrics: string[] = [];
  const canaries = [1, 2, 3].map(() => `canary-${randomBytes(12).toString('hex')}`);

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('canary', { stepMs: 20 }));
  });
  afterAll(async () => {
    for (const operator of operators) await operator.kill();
    await emu.close();
  });

  async function start(): Promise<{ operator: OperatorProcess; port: number }> {
    const port = await freePort();
    const operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      extraArgs: ['--health-port', String(port)],
    });
    operators.push(operator);
    await operator.waitForLog(/caches synced/);
    return { operator, port };
  }
  const scrape = async (port: number) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    metrics.push(text);
    return text;
  };
  const secret = (value: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'canary' },
    stringData: { TOKEN: value },
  });
  const onService = async () =>
    (
      (await emulatorState(emu)).deployments.find((d) => d.name === 'canary') as unknown as
        | { secrets: { name: string; value: string }[] }
        | undefined
    )?.secrets.find((s) => s.name === 'TOKEN')?.value;

  it('reaches the service and nothing else', async () => {
    let { operator, port } = await start();
    await apply(namespace, secret(canaries[0]!));
    await apply(
      namespace,
      agentDeployment('canary', {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'canary', key: 'TOKEN' } } }],
      }),
    );
    await waitFor(namespace, 'canary', 'condition=Ready');
    expect(await onService()).toBe(canaries[0]);

    // Rotation.
    await apply(namespace, secret(canaries[1]!));
    await expect.poll(onService, { timeout: 20_000 }).toBe(canaries[1]);
    await waitFor(namespace, 'canary', 'condition=Ready');

    // A rotation meets service errors (5xx), then the operator dies with it unsent.
    await setFaults(emu, {
      error_rate: 1,
      statuses: [500, 503],
      paths: ['PATCH /v2/deployments/{deployment_id}'],
    });
    const patches = async () =>
      (await emulatorState(emu)).calls['PATCH /v2/deployments/{deployment_id}'] ?? 0;
    const before = await patches();
    await apply(namespace, secret(canaries[2]!));
    await expect.poll(patches, { timeout: 20_000 }).toBeGreaterThan(before + 1);
    await operator.waitForLog(/injected fault/, 60_000); // the error reached a log line and the status
    expect(await scrape(port)).toContain('# HELP'); // the metrics endpoint really answers
    await operator.kill('SIGKILL');
    await setFaults(emu, null);
    ({ operator, port } = await start());
    await expect.poll(onService, { timeout: 30_000 }).toBe(canaries[2]);
    await waitFor(namespace, 'canary', 'condition=Ready');
    await scrape(port);

    const everywhere = {
      logs: operators.flatMap((o) => o.logs).join('\n'),
      events: (await kubectl(['get', 'events', '-n', namespace, '-o', 'json'])).stdout,
      resources: (
        await kubectl([
          'get',
          'deployments.deploy.agents.dev,listeners.deploy.agents.dev,agentconnections.deploy.agents.dev,oauthtokens.deploy.agents.dev',
          '-A',
          '-o',
          'json',
        ])
      ).stdout,
      metrics: metrics.join('\n'),
    };
    // The search would find it: errors were met and logged, and the values are where they belong.
    expect(everywhere.logs).toContain('injected fault');
    expect(everywhere.resources).toContain('"name": "canary"');
    for (const canary of canaries) {
      const encoded = Buffer.from(canary).toString('base64');
      for (const [where, text] of Object.entries(everywhere)) {
        expect(text.includes(canary), `${where} holds a secret value`).toBe(false);
        expect(text.includes(encoded), `${where} holds a secret value, base64`).toBe(false);
      }
    }
  }, 120_000);
});
