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
let file: string;
let deploymentId: string;
const listener = () => `${namespace}-cluster`;

const secret = (value: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db' },
  stringData: { url: value },
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
  const manifest = {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'app', namespace },
    spec: {
      name: `${namespace}-app`,
      source: 'internal_docker',
      listenerRef: { name: listener() },
      sourceRevisionConfig: { imageUri: 'registry.example/app:1' },
      secrets: [{ name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } }],
    },
  };
  // The resource in the cluster carries the id the operator recorded; the file in git does not.
  await apply(namespace, {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { 'deploy.agents.dev/deployment-id': deploymentId } },
  });
  file = join(mkdtempSync(join(tmpdir(), 'agent-deploy-diff-')), 'app.yaml');
  writeFileSync(file, stringify(manifest));
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

async function diff(args: string[]): Promise<DiffResult> {
  const run = await cli(['diff', '-f', file, '-o', 'json', ...args], serviceEnv(emu.url));
  expect(run.stderr).toBe('');
  const [result] = JSON.parse(run.stdout) as DiffResult[];
  return result!;
}

describe('agent-deploy diff --kubeconfig', () => {
  it('reads Secrets, the listenerId and the recorded id from the cluster', async () => {
    expect(await diff(['--kubeconfig', kubeconfigPath()])).toEqual({
      resource: `${namespace}/app`,
      deployment: `${namespace}-app`,
      action: 'nothing',
      deploymentId,
    });
    // Without the cluster, the recorded id is unknown and the name is taken.
    expect(await diff([])).toMatchObject({ action: 'cannot', deploymentId });
  });

  it('sees a changed Secret value as a secrets patch, without showing it', async () => {
    await apply(namespace, secret('postgres://rotated-password'));
    const run = await cli(['diff', '-f', file, '--kubeconfig', kubeconfigPath()], serviceEnv(emu.url));
    expect(run.stdout).toContain(`patch secrets\n  PATCH /v2/deployments/${deploymentId}\n`);
    expect(run.stdout).not.toContain('rotated-password');
    expect(await diff(['--kubeconfig', kubeconfigPath()])).toMatchObject({
      action: 'patch',
      patch: { secrets: ['DB_URL'] },
    });
  });
});
