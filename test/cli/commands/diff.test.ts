import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { DiffResult } from '../../../src/cli/commands/diff.ts';
import { defaultSeedIds, defaultSeedKeys } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { CreateDeploymentRequest, Deployment } from '../../../src/service/wire.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let emu: RunningEmulator;
let client: ServiceClient;
const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-diff-'));
let fileCount = 0;

/** Writes the objects as one multi-document YAML file. */
function manifestFile(...objects: object[]): string {
  const file = join(dir, `m${fileCount++}.yaml`);
  writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  return file;
}

const deployment = (name: string, spec: object, metadata: object = {}, status?: object) => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name, namespace: 'agents', ...metadata },
  spec,
  ...(status ? { status } : {}),
});

const dockerSpec = (image: string, extra: object = {}) => ({
  source: 'internal_docker',
  sourceConfig: { deploymentType: 'dev', resourceSpec: { minScale: 2 } },
  sourceRevisionConfig: { imageUri: image },
  ...extra,
});

const dockerRequest = (
  name: string,
  secrets: { name: string; value: string }[] = [],
): CreateDeploymentRequest => ({
  name,
  source: 'internal_docker',
  source_config: { deployment_type: 'dev', resource_spec: { min_scale: 2 } },
  source_revision_config: { image_uri: 'registry.example/app:1' },
  secrets,
});

let existing: Deployment;
let taken: Deployment;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, stepMs: 0 });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
  existing = await client.createDeployment(
    dockerRequest('existing', [
      { name: 'API_TOKEN', value: 'old-token-value' },
      { name: 'DB_URL', value: 'postgres://db-secret' },
    ]),
  );
  taken = await client.createDeployment(dockerRequest('taken'));
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

async function diff(file: string): Promise<DiffResult[]> {
  const run = await cli(['diff', '-f', file, '-o', 'json'], serviceEnv(emu.url));
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as DiffResult[];
}

const existingSecrets = [
  { name: 'API_TOKEN', value: 'old-token-value' },
  { name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } },
];

describe('agent-deploy diff', () => {
  it('shows the create request with the repository resolved and secret values masked', async () => {
    const file = manifestFile(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } },
      deployment('new-agent', {
        source: 'codehost',
        repository: { owner: 'acme', name: 'research-agent' },
        sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
        secrets: [
          { name: 'OPENAI_API_KEY', value: 'sk-very-secret-value' },
          { name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } },
        ],
      }),
    );
    const [result, ...rest] = await diff(file);
    expect(rest).toEqual([]);
    expect(result).toEqual({
      resource: 'agents/new-agent',
      deployment: 'new-agent',
      action: 'create',
      request: {
        name: 'new-agent',
        source: 'codehost',
        source_config: {
          integration_id: defaultSeedIds.installedIntegration,
          repo_url: 'https://github.com/acme/research-agent',
        },
        source_revision_config: { graph_config_path: 'langgraph.json', repo_ref: 'main' },
        secrets: [
          { name: 'DB_URL', value: '<hidden>' },
          { name: 'OPENAI_API_KEY', value: '<hidden>' },
        ],
      },
      notes: [expect.stringContaining('DB_URL')],
    });
    const text = await cli(['diff', '-f', file], serviceEnv(emu.url));
    expect(text.stdout).toMatch(
      /^Deployment agents\/new-agent \(service deployment new-agent\): create\n {2}POST \/v2\/deployments\n/,
    );
    expect(text.stdout).toContain('repo_url: https://github.com/acme/research-agent');
    expect(text.stdout).not.toContain('sk-very-secret-value');
  });

  it('shows the fields it would patch, secrets by name only', async () => {
    const file = manifestFile(
      deployment(
        'existing',
        dockerSpec('registry.example/app:2', {
          sourceConfig: { deploymentType: 'dev', resourceSpec: { minScale: 1 } },
          secrets: [{ name: 'API_TOKEN', value: 'new-token-value' }, existingSecrets[1]],
        }),
        { annotations: { 'deploy.agents.dev/deployment-id': existing.id } },
      ),
    );
    const [result] = await diff(file);
    expect(result).toEqual({
      resource: 'agents/existing',
      deployment: 'existing',
      action: 'patch',
      deploymentId: existing.id,
      patch: {
        source_config: { resource_spec: { min_scale: 1 } },
        source_revision_config: { image_uri: 'registry.example/app:2' },
        secrets: ['API_TOKEN', 'DB_URL'],
      },
      notes: [expect.stringContaining('DB_URL')],
    });
    const text = await cli(['diff', '-f', file], serviceEnv(emu.url));
    expect(text.stdout).toContain(
      `patch source_config, source_revision_config, secrets\n  PATCH /v2/deployments/${existing.id}\n`,
    );
    for (const value of ['new-token-value', 'old-token-value', 'postgres://db-secret'])
      expect(text.stdout).not.toContain(value);
  });

  it('says nothing is to do when the service holds the spec, comparing unknown secret values by name', async () => {
    const file = manifestFile(
      deployment(
        'existing',
        dockerSpec('registry.example/app:1', { secrets: existingSecrets }),
        {},
        {
          deploymentId: existing.id,
        },
      ),
    );
    const [result] = await diff(file);
    expect(result).toMatchObject({ action: 'nothing', deploymentId: existing.id });
    expect(result!.notes).toEqual([
      expect.stringMatching(/DB_URL .*unknown without --kubeconfig: compared by name only/),
    ]);
  });

  it('cannot change an immutable field', async () => {
    const file = manifestFile(
      deployment(
        'existing',
        dockerSpec('registry.example/app:1', {
          sourceConfig: { deploymentType: 'prod', resourceSpec: { minScale: 2 } },
          secrets: existingSecrets,
        }),
        { annotations: { 'deploy.agents.dev/deployment-id': existing.id } },
      ),
    );
    const [result] = await diff(file);
    expect(result).toMatchObject({
      action: 'cannot',
      deploymentId: existing.id,
      reason:
        'sourceConfig.deploymentType differ from the service deployment and cannot be changed after creation',
    });
  });

  it('finds by exact name and adopts only with spec.adopt', async () => {
    const refused = await diff(manifestFile(deployment('taken', dockerSpec('registry.example/app:1'))));
    expect(refused[0]).toMatchObject({
      action: 'cannot',
      deploymentId: taken.id,
      reason: `a service deployment named taken already exists (${taken.id}); set spec.adopt: true to take it over`,
    });
    const adopted = await diff(
      manifestFile(deployment('taken', dockerSpec('registry.example/app:1', { adopt: true }))),
    );
    expect(adopted[0]).toEqual({
      resource: 'agents/taken',
      deployment: 'taken',
      action: 'nothing',
      deploymentId: taken.id,
      adopts: 'spec.adopt',
    });
  });

  it('says why it cannot resolve an input', async () => {
    const results = await diff(
      manifestFile(
        deployment('lost-repo', {
          source: 'codehost',
          repository: { owner: 'acme', name: 'nope' },
          sourceRevisionConfig: { graphConfigPath: 'g.json' },
        }),
        deployment(
          'on-listener',
          dockerSpec('registry.example/app:1', { listenerRef: { name: 'dev-cluster' } }),
        ),
      ),
    );
    expect(results.map((r) => [r.deployment, r.action, 'reason' in r ? r.reason : ''])).toEqual([
      ['lost-repo', 'cannot', 'repository acme/nope is in no code-host integration'],
      ['on-listener', 'cannot', expect.stringContaining('pass --kubeconfig')],
    ]);
  });

  it('changes nothing: only GETs reach the service', async () => {
    await fetch(`${emu.adminUrl}/_emulator/calls/reset`, { method: 'POST' });
    const before = await client.listAllDeployments();
    const file = manifestFile(
      deployment('brand-new', dockerSpec('registry.example/app:1')),
      deployment('existing', dockerSpec('registry.example/app:9', { secrets: existingSecrets }), {
        annotations: { 'deploy.agents.dev/deployment-id': existing.id },
      }),
      deployment('taken', dockerSpec('registry.example/app:2', { adopt: true })),
    );
    const results = await diff(file);
    expect(results.map((r) => r.action)).toEqual(['create', 'patch', 'patch']);
    const state = (await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as {
      calls: Record<string, number>;
    };
    const methods = Object.keys(state.calls).map((k) => k.split(' ')[0]);
    expect(methods.length).toBeGreaterThan(0);
    expect(new Set(methods)).toEqual(new Set(['GET']));
    expect(await client.listAllDeployments()).toEqual(before);
  });

  it('reports a bad file or service as one line', async () => {
    expect(oneLineError(await cli(['diff', '-f', join(dir, 'missing.yaml')], serviceEnv(emu.url)))).toMatch(
      /^agent-deploy: cannot read .*missing\.yaml: ENOENT/,
    );
    const noDeployment = manifestFile({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(oneLineError(await cli(['diff', '-f', noDeployment], serviceEnv(emu.url)))).toBe(
      `agent-deploy: ${noDeployment} holds no Deployment (deploy.agents.dev/v1alpha1)`,
    );
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'kind: Deployment\n  spec: [\n');
    expect(oneLineError(await cli(['diff', '-f', broken], serviceEnv(emu.url)))).toMatch(
      /^agent-deploy: .*broken\.yaml is not valid YAML: /,
    );
    const file = manifestFile(deployment('x', dockerSpec('registry.example/app:1')));
    expect(oneLineError(await cli(['diff', '-f', file], { AGENT_DEPLOY_API_KEY: 'dev-key' }))).toBe(
      'agent-deploy: no service URL: pass --service-url or set AGENT_DEPLOY_SERVICE_URL',
    );
    const refused = oneLineError(await cli(['diff', '-f', file], serviceEnv(emu.url, 'sk-wrong-key')));
    expect(refused).toMatch(
      /^agent-deploy: the service refused the API key from environment variable AGENT_DEPLOY_API_KEY \(GET \/v2\/deployments: 401 /,
    );
    expect(refused).not.toContain('sk-wrong-key');
    expect(oneLineError(await cli(['diff', '-f', file], serviceEnv('http://127.0.0.1:1')))).toMatch(
      /^agent-deploy: cannot reach the service at http:\/\/127\.0\.0\.1:1 \(GET /,
    );
  });
});
