// --workspace on the service subcommands: URL, tenant and key read from a Workspace or ClusterWorkspace in
// the cluster, as the operator reads them; a person sees only that workspace's tenant, and never its key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdDocuments } from '../../src/api/crd.ts';
import { defaultSeedKeys } from '../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { createTestNamespace, installCrds, kubeconfigPath, kubectl } from '../support/kube.ts';
import { cli, oneLineError } from './support.ts';

let emu: RunningEmulator;
let namespace: string;
let keys: string;
let cluster: string;
const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeAll(async () => {
  await installCrds(crdDocuments());
  emu = await startEmulator({ port: 0, stepMs: 0 });
  namespace = await createTestNamespace('cli-ws');
  keys = await createTestNamespace('cli-ws-keys');
  cluster = `cli-${namespace}`;
  // One deployment in each tenant: which one a command lists tells which key it used.
  for (const [key, name] of [
    [defaultSeedKeys.dev, 'in-tenant-a'],
    [defaultSeedKeys.otherTenant, 'in-tenant-b'],
  ] as const) {
    const client = new ServiceClient({ baseUrl: emu.url, apiKey: key });
    await client.createDeployment({
      name,
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: 'agent:1' },
      secrets: [],
    });
    await client.close();
  }
  const items = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'b-key', namespace },
      data: { k: b64(defaultSeedKeys.otherTenant) },
    },
    {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'team-b', namespace },
      spec: { serviceUrl: emu.url, apiKeySecretRef: { name: 'b-key', key: 'k' } },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'a-key', namespace: keys },
      data: { k: b64(defaultSeedKeys.dev) },
    },
    {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'ClusterWorkspace',
      metadata: { name: cluster },
      spec: { apiKeySecretRef: { name: 'a-key', key: 'k', namespace: keys } },
    },
  ];
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
});
afterAll(async () => {
  await kubectl(['delete', 'clusterworkspaces.deploy.agents.dev', cluster, '--ignore-not-found']);
  await emu.close();
});

const names = (stdout: string) => (JSON.parse(stdout) as { name: string }[]).map((d) => d.name);
const env = { KUBECONFIG: kubeconfigPath() };

describe('--workspace', () => {
  it('lists the deployments of the Workspace tenant, with its URL and key from the cluster', async () => {
    const run = await cli(['deployments', '--workspace', 'team-b', '-n', namespace, '-o', 'json'], env);
    expect(run.stderr).toBe('');
    expect(names(run.stdout)).toEqual(['in-tenant-b']);
  });

  it('takes KIND/NAME, and the flags for what the workspace leaves out', async () => {
    const run = await cli(
      ['deployments', '--workspace', `ClusterWorkspace/${cluster}`, '--service-url', emu.url, '-o', 'json'],
      env,
    );
    expect(run.stderr).toBe('');
    expect(names(run.stdout)).toEqual(['in-tenant-a']);
    const yaml = await cli(
      ['deployments', '--workspace', `clusterworkspace/${cluster}`, '--service-url', emu.url, '-o', 'yaml'],
      env,
    );
    for (const out of [run.stdout, yaml.stdout]) {
      expect(out).not.toContain(defaultSeedKeys.dev);
      expect(out).not.toContain(defaultSeedKeys.otherTenant);
    }
  });

  it('says in one line what is missing', async () => {
    const missing = oneLineError(await cli(['providers', '--workspace', 'nope', '-n', namespace], env));
    expect(missing).toBe(`agent-deploy: no Workspace ${namespace}/nope and no ClusterWorkspace nope`);
    await kubectl(['delete', 'secret', '-n', namespace, 'b-key']);
    const noKey = oneLineError(
      await cli(['providers', '--workspace', 'Workspace/team-b', '-n', namespace], env),
    );
    expect(noKey).toBe(
      `agent-deploy: the workspace's API key is not there: no key k of Secret ${namespace}/b-key`,
    );
  });
});
