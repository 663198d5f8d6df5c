// Scenario 4: a Secret rotation is a change of the deployment (a new revision), and secret values
// never appear in status, Events or the operator's logs.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorState, getCr, setUp, waitFor } from './support.ts';

describe('Deployment secrets', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const canary1 = `canary-${randomBytes(8).toString('hex')}`;
  const canary2 = `canary-${randomBytes(8).toString('hex')}`;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('secrets', { stepMs: 20 }));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace] });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  const secret = (value: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'agent-keys' },
    stringData: { OPENAI_API_KEY: value, EXTRA: 'from-secretsFrom' },
  });

  it('waits for a missing Secret, sends its values, and rotates them as a new revision', async () => {
    await apply(
      namespace,
      agentDeployment('with-secrets', {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
        secrets: [
          { name: 'PLAIN', value: 'not-sensitive' },
          {
            name: 'OPENAI_API_KEY',
            valueFrom: { secretKeyRef: { name: 'agent-keys', key: 'OPENAI_API_KEY' } },
          },
        ],
        secretsFrom: [{ secretRef: { name: 'agent-keys' } }],
      }),
    );
    await waitFor(namespace, 'with-secrets', 'condition=Synced=False');
    expect(
      (await getCr(namespace, 'with-secrets')).status.conditions.find(
        (c: { type: string }) => c.type === 'Synced',
      ).reason,
    ).toBe('SecretNotFound');

    await apply(namespace, secret(canary1)); // the Secret's own watch event wakes the resource
    await waitFor(namespace, 'with-secrets', 'condition=Ready');
    const service = () =>
      emulatorState(emu).then(
        (s) =>
          s.deployments.find((d) => d.name === 'with-secrets') as unknown as {
            secrets: { name: string; value: string }[];
            revisions: unknown[];
          },
      );
    expect((await service()).secrets).toEqual([
      { name: 'EXTRA', value: 'from-secretsFrom' },
      { name: 'OPENAI_API_KEY', value: canary1 },
      { name: 'PLAIN', value: 'not-sensitive' },
    ]);
    const digest = (await getCr(namespace, 'with-secrets')).status.secretsDigest;

    await apply(namespace, secret(canary2));
    await expect.poll(async () => (await service()).revisions.length, { timeout: 20_000 }).toBe(2);
    await waitFor(namespace, 'with-secrets', 'condition=Ready');
    expect((await service()).secrets.find((s) => s.name === 'OPENAI_API_KEY')!.value).toBe(canary2);
    expect((await getCr(namespace, 'with-secrets')).status.secretsDigest).not.toBe(digest);

    const { stdout: crJson } = await kubectl([
      'get',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      'with-secrets',
      '-o',
      'json',
    ]);
    const { stdout: events } = await kubectl(['get', 'events', '-n', namespace, '-o', 'json']);
    for (const canary of [canary1, canary2]) {
      expect(crJson).not.toContain(canary);
      expect(events).not.toContain(canary);
      expect(operator.logs.join('\n')).not.toContain(canary);
    }
    expect(operator.logs.length).toBeGreaterThan(3); // the logs were really captured
  });
});
