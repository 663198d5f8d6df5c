// Scenario 4: a Secret rotation is a change of the deployment (a new revision), and secret values
// never appear in status, Events or the operator's logs. A deleted Secret, and one the operator's RBAC
// does not let it read, are said in Synced with the Secret's namespace/name.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl, serviceAccountKubeconfig } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorState, eventsOf, getCr, setUp, waitFor } from './support.ts';

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

  it('says SecretNotFound with a Warning event when a referenced Secret is deleted, and recovers from the watch', async () => {
    await apply(namespace, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'short-lived' },
      stringData: { TOKEN: 'v1' },
    });
    await apply(
      namespace,
      agentDeployment('reader', {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'short-lived', key: 'TOKEN' } } }],
      }),
    );
    await waitFor(namespace, 'reader', 'condition=Ready');
    await kubectl(['delete', 'secret', '-n', namespace, 'short-lived']);
    await waitFor(namespace, 'reader', 'condition=Synced=False');
    const synced = (await getCr(namespace, 'reader')).status.conditions.find(
      (c: { type: string }) => c.type === 'Synced',
    );
    expect(synced).toMatchObject({ reason: 'SecretNotFound' });
    expect(synced.message).toContain(`Secret ${namespace}/short-lived`);
    await expect
      .poll(async () => (await eventsOf(namespace, 'reader', 'reason=SecretNotFound,type=Warning')).length)
      .toBe(1);
    expect(
      operator.logs.some((l) => l.includes('"reason":"SecretNotFound"') && l.includes(`${namespace}/reader`)),
    ).toBe(true);

    await apply(namespace, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'short-lived' },
      stringData: { TOKEN: 'v1' },
    });
    await waitFor(namespace, 'reader', 'condition=Synced', 10); // the Secret's watch event, no timer
    await waitFor(namespace, 'reader', 'condition=Ready', 10);
  });
});

describe('a Secret the operator may not read', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  let dir: string;

  /** deploy/'s ClusterRole without its Secrets rule: Secrets are granted per name by a Role below. */
  function clusterRoleWithoutSecrets(name: string) {
    const [role] = parseAllDocuments(
      readFileSync(new URL('../../../deploy/cluster-role.yaml', import.meta.url), 'utf8'),
    ).map((d) => d.toJSON());
    return {
      ...role,
      metadata: { name },
      rules: role.rules.filter((r: { resources: string[] }) => !r.resources.includes('secrets')),
    };
  }
  const secretsRole = (names: string[]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'operator-secrets' },
    rules: [
      { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: names },
    ],
  });

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('secret-rbac'));
    const subjects = [{ kind: 'ServiceAccount', name: 'operator', namespace }];
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          clusterRoleWithoutSecrets(`${namespace}-operator`),
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: `${namespace}-operator` },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: `${namespace}-operator`,
            },
            subjects,
          },
          { ...secretsRole(['granted']), metadata: { name: 'operator-secrets', namespace } },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'operator-secrets', namespace },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'operator-secrets' },
            subjects,
          },
        ],
      }),
    });
    dir = mkdtempSync(join(tmpdir(), 'agent-deploy-sa-'));
    const kubeconfig = await serviceAccountKubeconfig(namespace, 'operator', dir);
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], kubeconfig });
  });
  afterAll(async () => {
    await operator?.kill();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is SecretForbidden naming namespace/name, while a granted one works; a later grant is picked up', async () => {
    const secret = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      stringData: { K: name },
    });
    const reading = (name: string, from: string) =>
      agentDeployment(name, {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
        secrets: [{ name: 'K', valueFrom: { secretKeyRef: { name: from, key: 'K' } } }],
      });
    for (const manifest of [
      secret('granted'),
      secret('private'),
      reading('ok', 'granted'),
      reading('nope', 'private'),
    ])
      await apply(namespace, manifest);
    await waitFor(namespace, 'ok', 'condition=Ready');
    await waitFor(namespace, 'nope', 'condition=Synced=False');
    const cr = await getCr(namespace, 'nope');
    const byType = Object.fromEntries(cr.status.conditions.map((c: { type: string }) => [c.type, c]));
    expect(byType.Synced).toMatchObject({ reason: 'SecretForbidden' });
    expect(byType.Synced.message).toContain(`Secret ${namespace}/private`);
    expect(byType.Stalled.status).toBe('False');
    expect((await emulatorState(emu)).deployments.map((d) => d.name)).not.toContain('nope');

    await apply(namespace, secretsRole(['granted', 'private']));
    await waitFor(namespace, 'nope', 'condition=Ready', 90);
  }, 150_000);
});
