// `agent-deploy diff --kubeconfig`: Secrets, the Listener's listenerId and the resource's own
// annotations come from a real cluster.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { DiffResult } from '../../../src/cli/commands/diff.ts';
import { defaultSeedIds, defaultSeedKeys } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import { apply, setUp } from '../../controllers/deployment/support.ts';
import { kubeconfigPath, kubectl } from '../../support/kube.ts';
import { cli, serviceEnv } from '../support.ts';

let namespace: string;
let emu: RunningEmulator;
let client: ServiceClient;
let dir: string;
let file: string;
let deploymentId: string;
const listener = () => `${namespace}-cluster`;

const secret = (value: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db' },
  stringData: { url: value },
});

/** A Deployment for the service deployment `<namespace>-app`, as the file in git has it. */
const appManifest = (name: string, sourceConfig: object = {}) => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    name: `${namespace}-app`,
    source: 'internal_docker',
    ...(Object.keys(sourceConfig).length > 0 ? { sourceConfig } : { listenerRef: { name: listener() } }),
    sourceRevisionConfig: { imageUri: 'registry.example/app:1' },
    secrets: [{ name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } }],
  },
});

beforeAll(async () => {
  ({ namespace, emu } = await setUp('cli-diff'));
  client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
  await apply(namespace, secret('postgres://from-cluster'));
  await kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'Listener',
      metadata: { name: listener() },
      spec: {},
    }),
  });
  await kubectl([
    'patch',
    'listeners.deploy.agents.dev',
    listener(),
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { listenerId: defaultSeedIds.listener } }),
  ]);
  const created = await client.createDeployment({
    name: `${namespace}-app`,
    source: 'internal_docker',
    source_config: { listener_id: defaultSeedIds.listener },
    source_revision_config: { image_uri: 'registry.example/app:1' },
    secrets: [{ name: 'DB_URL', value: 'postgres://from-cluster' }],
  });
  deploymentId = created.id;
  const manifest = appManifest('app');
  // The resource in the cluster carries the id the operator recorded; the file in git does not.
  await apply(namespace, {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { 'deploy.agents.dev/deployment-id': deploymentId } },
  });
  dir = mkdtempSync(join(tmpdir(), 'agent-deploy-diff-'));
  file = join(dir, 'app.yaml');
  writeFileSync(file, stringify(manifest));
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

async function diff(args: string[], code: 0 | 1, path = file): Promise<DiffResult> {
  const run = await cli(['diff', '-f', path, '-o', 'json', ...args], serviceEnv(emu.url));
  expect(run.stderr).toBe('');
  expect(run.code).toBe(code);
  const [result] = JSON.parse(run.stdout) as DiffResult[];
  return result!;
}

describe('agent-deploy diff --kubeconfig', () => {
  it('reads Secrets, the listenerId and the recorded id from the cluster', async () => {
    expect(await diff(['--kubeconfig', kubeconfigPath()], 0)).toEqual({
      resource: `${namespace}/app`,
      deployment: `${namespace}-app`,
      action: 'nothing',
      deploymentId,
    });
    // Without the cluster, the listenerId of spec.listenerRef is unknown: an error, saying so.
    const run = await cli(['diff', '-f', file, '-o', 'json'], serviceEnv(emu.url));
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject([
      { action: 'cannot', reason: expect.stringContaining('pass --kubeconfig') },
    ]);
    expect(run.stderr).toContain('pass --kubeconfig');
  });

  it('sees a changed Secret value as a secrets patch, without showing it', async () => {
    await apply(namespace, secret('postgres://rotated-password'));
    try {
      const run = await cli(['diff', '-f', file, '--kubeconfig', kubeconfigPath()], serviceEnv(emu.url));
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        `patch secrets\n  PATCH /v2/deployments/${deploymentId}\n    secrets.DB_URL: changed or unknown (values not shown)\n`,
      );
      for (const output of ['table', 'json', 'yaml']) {
        const shown = await cli(
          ['diff', '-f', file, '--kubeconfig', kubeconfigPath(), '-o', output],
          serviceEnv(emu.url),
        );
        expect(`${shown.stdout}${shown.stderr}`).not.toMatch(/rotated-password|from-cluster/);
      }
      expect(await diff(['--kubeconfig', kubeconfigPath()], 1)).toMatchObject({
        action: 'patch',
        fields: ['secrets'],
        changes: [],
        secrets: { added: [], removed: [], changedOrUnknown: ['DB_URL'] },
      });
    } finally {
      await apply(namespace, secret('postgres://from-cluster'));
    }
  });

  it('with the cluster, a name held by a deployment this resource is not bound to is refused; without, only noted', async () => {
    // Not in the cluster: the operator would create it, meet the name, and refuse to take it over.
    const other = join(dir, 'other.yaml');
    writeFileSync(other, stringify(appManifest('other', { listenerId: defaultSeedIds.listener })));
    const run = await cli(['diff', '-f', other, '--kubeconfig', kubeconfigPath()], serviceEnv(emu.url));
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      `cannot: a service deployment named ${namespace}-app already exists (${deploymentId}); set spec.adopt: true to take it over`,
    );
    expect(run.stderr).toContain('set spec.adopt: true');
    // Without the cluster there is no telling whether it is bound: compared as if it were, with a note.
    const unbound = await diff([], 0, other);
    expect(unbound).toMatchObject({ action: 'nothing', deploymentId });
    expect(unbound.notes).toContainEqual(
      expect.stringContaining('without cluster access there is no telling'),
    );
    expect(JSON.stringify(unbound)).not.toContain('spec.adopt');
  });

  it('takes over what an earlier create of the resource made (the create-pending marker)', async () => {
    const retried = appManifest('retried');
    await apply(namespace, {
      ...retried,
      metadata: {
        ...retried.metadata,
        annotations: { 'deploy.agents.dev/create-pending': new Date().toISOString() },
      },
    });
    const path = join(dir, 'retried.yaml');
    writeFileSync(path, stringify(retried));
    expect(await diff(['--kubeconfig', kubeconfigPath()], 1, path)).toEqual({
      resource: `${namespace}/retried`,
      deployment: `${namespace}-app`,
      action: 'nothing',
      deploymentId,
      adopts: 'an earlier create of this resource',
    });
  });
});
