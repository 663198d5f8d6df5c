import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { DiffResult } from '../../../src/cli/commands/diff.ts';
import { defaultSeedIds, defaultSeedKeys } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { CreateDeploymentRequest, Deployment } from '../../../src/service/wire.ts';
import { startStub } from '../../service/http-stub.ts';
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

/** The results as JSON, checking the exit status: 0 nothing would change, 1 something would. */
async function diff(file: string, code: 0 | 1): Promise<DiffResult[]> {
  const run = await cli(['diff', '-f', file, '-o', 'json'], serviceEnv(emu.url));
  expect(run.stderr).toBe('');
  expect(run.code).toBe(code);
  return JSON.parse(run.stdout) as DiffResult[];
}

/** The results of a diff that exits 2 because the operator could not apply a Deployment. */
async function refusedDiff(file: string): Promise<{ results: DiffResult[]; stderr: string }> {
  const run = await cli(['diff', '-f', file, '-o', 'json'], serviceEnv(emu.url));
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^agent-deploy: the operator could not apply [^\n]+\n$/);
  return { results: JSON.parse(run.stdout) as DiffResult[], stderr: run.stderr };
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
    const [result, ...rest] = await diff(file, 1);
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
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /^Deployment agents\/new-agent \(service deployment new-agent\): create\n {2}POST \/v2\/deployments\n/,
    );
    expect(text.stdout).toContain('repo_url: https://github.com/acme/research-agent');
    expect(text.stdout).not.toContain('sk-very-secret-value');
  });

  it('shows the fields it would patch under their spec names, secrets by name only', async () => {
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
    const [result] = await diff(file, 1);
    expect(result).toEqual({
      resource: 'agents/existing',
      deployment: 'existing',
      action: 'patch',
      deploymentId: existing.id,
      fields: ['sourceConfig', 'sourceRevisionConfig', 'secrets'],
      changes: [
        { field: 'sourceConfig.resourceSpec.minScale', from: 2, to: 1 },
        {
          field: 'sourceRevisionConfig.imageUri',
          from: 'registry.example/app:1',
          to: 'registry.example/app:2',
        },
      ],
      secrets: { added: [], removed: [], changedOrUnknown: ['API_TOKEN'] },
      notes: [expect.stringContaining('DB_URL')],
    });
    const text = await cli(['diff', '-f', file], serviceEnv(emu.url));
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      [
        'patch sourceConfig, sourceRevisionConfig, secrets',
        `  PATCH /v2/deployments/${existing.id}`,
        '    sourceConfig.resourceSpec.minScale: 2 → 1',
        '    sourceRevisionConfig.imageUri: "registry.example/app:1" → "registry.example/app:2"',
        '    secrets.API_TOKEN: changed or unknown (values not shown)',
        '',
      ].join('\n'),
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
    const [result] = await diff(file, 0);
    expect(result).toMatchObject({ action: 'nothing', deploymentId: existing.id });
    expect(result!.notes).toEqual([
      expect.stringMatching(/DB_URL .*unknown without --kubeconfig: compared by name only/),
    ]);
    const text = await cli(['diff', '-f', file], serviceEnv(emu.url));
    expect(text).toEqual({ code: 0, stdout: expect.stringContaining('nothing to do'), stderr: '' });
  });

  it('cannot change an immutable field: exit 2, saying why', async () => {
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
    const reason =
      'spec.sourceConfig.deploymentType differs from the service deployment and cannot be changed after ' +
      'creation: to change it, delete this resource and create it again (with deletionPolicy Delete the ' +
      'service deployment goes too), or create a new resource with another spec.name';
    const { results, stderr } = await refusedDiff(file);
    expect(results[0]).toMatchObject({ action: 'cannot', deploymentId: existing.id, reason });
    expect(stderr).toBe(`agent-deploy: the operator could not apply agents/existing (${reason})\n`);
  });

  it('without cluster access, a deployment holding the name is compared as if bound: a note, no advice to adopt', async () => {
    const file = manifestFile(deployment('taken', dockerSpec('registry.example/app:1')));
    const [result] = await diff(file, 0);
    const note = `without cluster access there is no telling whether this resource already holds service deployment ${taken.id} (named taken); compared as if it does`;
    expect(result).toEqual({
      resource: 'agents/taken',
      deployment: 'taken',
      action: 'nothing',
      deploymentId: taken.id,
      notes: [note],
    });
    for (const output of ['table', 'json', 'yaml']) {
      const run = await cli(['diff', '-f', file, '-o', output], serviceEnv(emu.url));
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain('spec.adopt');
      expect(run.stdout).toContain('no telling whether');
    }
    expect((await cli(['diff', '-f', file], serviceEnv(emu.url))).stdout).toContain(`  note: ${note}\n`);

    const changed = await diff(manifestFile(deployment('taken', dockerSpec('registry.example/app:2'))), 1);
    expect(changed[0]).toMatchObject({
      action: 'patch',
      deploymentId: taken.id,
      changes: [
        {
          field: 'sourceRevisionConfig.imageUri',
          from: 'registry.example/app:1',
          to: 'registry.example/app:2',
        },
      ],
      notes: [note],
    });
  });

  it('takes a deployment over with spec.adopt: a change', async () => {
    const adopted = await diff(
      manifestFile(deployment('taken', dockerSpec('registry.example/app:1', { adopt: true }))),
      1,
    );
    expect(adopted[0]).toEqual({
      resource: 'agents/taken',
      deployment: 'taken',
      action: 'nothing',
      deploymentId: taken.id,
      adopts: 'spec.adopt',
    });
  });

  it('says an observed resource is observed, nothing to do, without reading its inputs; a missing one cannot', async () => {
    // Another image and a Secret nobody can read here: an observed resource is never written, so neither matters.
    const observed = dockerSpec('registry.example/app:9', {
      managementPolicy: 'Observe',
      secrets: [{ name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } }],
    });
    const [result] = await diff(manifestFile(deployment('existing', observed)), 0);
    expect(result).toEqual({
      resource: 'agents/existing',
      deployment: 'existing',
      action: 'nothing',
      deploymentId: existing.id,
      reason: 'observed only (spec.managementPolicy: Observe): the operator changes nothing on the service',
    });
    const text = await cli(
      ['diff', '-f', manifestFile(deployment('existing', observed))],
      serviceEnv(emu.url),
    );
    expect(text.stdout).toBe(
      `Deployment agents/existing (service deployment existing): nothing to do: observed only (spec.managementPolicy: Observe): the operator changes nothing on the service\n`,
    );

    const { results } = await refusedDiff(manifestFile(deployment('never-made', observed)));
    expect(results[0]).toMatchObject({
      action: 'cannot',
      reason: expect.stringContaining('the service has no deployment named never-made'),
    });
  });

  it('says why it cannot resolve an input', async () => {
    const { results, stderr } = await refusedDiff(
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
    expect(stderr).toContain('agents/lost-repo (repository acme/nope is in no code-host integration); ');
    expect(stderr).toContain('agents/on-listener (');
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
    const results = await diff(file, 1);
    expect(results.map((r) => r.action)).toEqual(['create', 'patch', 'patch']);
    const state = (await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as {
      calls: Record<string, number>;
    };
    const methods = Object.keys(state.calls).map((k) => k.split(' ')[0]);
    expect(methods.length).toBeGreaterThan(0);
    expect(new Set(methods)).toEqual(new Set(['GET']));
    expect(await client.listAllDeployments()).toEqual(before);
  });

  it('exits as kubectl diff: 0 unchanged, 1 changes, 2 errors', async () => {
    const env = serviceEnv(emu.url);
    const unchanged = manifestFile(
      deployment('existing', dockerSpec('registry.example/app:1', { secrets: existingSecrets }), {
        annotations: { 'deploy.agents.dev/deployment-id': existing.id },
      }),
    );
    const changed = manifestFile(deployment('brand-new', dockerSpec('registry.example/app:1')));
    expect((await cli(['diff', '-f', unchanged], env)).code).toBe(0);
    expect((await cli(['diff', '-f', changed], env)).code).toBe(1);
    // -f more than once: any change is a change.
    expect((await cli(['diff', '-f', unchanged, '-f', changed], env)).code).toBe(1);

    const invalid = manifestFile(
      deployment('existing', dockerSpec('registry.example/app:1')),
      deployment('bad', { source: 'ftp', sourceRevisionConfig: { imageUri: 'x' } }),
    );
    expect(oneLineError(await cli(['diff', '-f', invalid], env), 2)).toMatch(
      new RegExp(`^agent-deploy: invalid manifest: ${invalid}: Deployment agents/bad: .*source`),
    );
    const nameless = manifestFile({ ...deployment('x', dockerSpec('a')), metadata: { namespace: 'agents' } });
    expect(oneLineError(await cli(['diff', '-f', nameless], env), 2)).toBe(
      `agent-deploy: invalid manifest: ${nameless}: a Deployment has no metadata.name`,
    );
    expect(oneLineError(await cli(['diff', '-f', join(dir, 'missing.yaml')], env), 2)).toMatch(
      /^agent-deploy: cannot read .*missing\.yaml: ENOENT/,
    );
    // A usage error is an error too, not "differences".
    const usage = await cli(['diff'], env);
    expect(usage).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining("'-f, --filename <path>'"),
    });
    const help = await cli(['diff', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /Exit status, as kubectl diff:\n {2}0 {2}nothing would change\n {2}1 {2}something/,
    );
  });

  it('reads a directory recursively (.yaml, .yml, .json only), in path order', async () => {
    const root = join(dir, 'tree');
    mkdirSync(join(root, 'nested', 'deeper'), { recursive: true });
    writeFileSync(
      join(root, 'a.yaml'),
      [
        stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }),
        stringify(deployment('tree-a', dockerSpec('registry.example/app:1'))),
      ].join('---\n'),
    );
    writeFileSync(join(root, 'nested', 'c.json'), JSON.stringify(deployment('tree-c', dockerSpec('x:1'))));
    writeFileSync(
      join(root, 'nested', 'deeper', 'b.yml'),
      stringify(deployment('tree-b', dockerSpec('registry.example/app:1'))),
    );
    writeFileSync(join(root, 'nested', 'notes.txt'), stringify(deployment('tree-txt', dockerSpec('x:1'))));
    // An apps/v1 Deployment is another kind: skipped.
    writeFileSync(
      join(root, 'nested', 'z.yaml'),
      stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: {} }),
    );
    const results = await diff(root, 1);
    expect(results.map((r) => r.resource)).toEqual(['agents/tree-a', 'agents/tree-c', 'agents/tree-b']);
    expect(results.map((r) => r.action)).toEqual(['create', 'create', 'create']);

    const empty = join(dir, 'empty');
    mkdirSync(join(empty, 'sub'), { recursive: true });
    expect(oneLineError(await cli(['diff', '-f', empty], serviceEnv(emu.url)), 2)).toMatch(
      /holds no Deployment \(deploy\.agents\.dev\/v1alpha1\)$/,
    );
  });

  it('reads - from standard input', async () => {
    const text = stringify(
      deployment('existing', dockerSpec('registry.example/app:3', { secrets: existingSecrets })),
    );
    const run = await cli(
      ['diff', '-f', '-', '-o', 'yaml'],
      { ...serviceEnv(emu.url), KUBECONFIG: '' },
      text,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(parse(run.stdout)).toMatchObject([
      {
        resource: 'agents/existing',
        action: 'patch',
        changes: [
          {
            field: 'sourceRevisionConfig.imageUri',
            from: 'registry.example/app:1',
            to: 'registry.example/app:3',
          },
        ],
      },
    ]);
    const both = await cli(
      ['diff', '-f', '-', '-f', manifestFile(deployment('brand-new', dockerSpec('a:1'))), '-o', 'json'],
      serviceEnv(emu.url),
      text,
    );
    expect(both.code).toBe(1);
    expect((JSON.parse(both.stdout) as DiffResult[]).map((r) => r.deployment)).toEqual([
      'existing',
      'brand-new',
    ]);
  });

  it('never shows a secret value, in any output format', async () => {
    const canary = await client.createDeployment(
      dockerRequest('canary', [
        { name: 'HELD', value: 'canary-held-91c2' },
        { name: 'GONE', value: 'canary-gone-44ab' },
      ]),
    );
    const file = manifestFile(
      deployment(
        'canary',
        dockerSpec('registry.example/app:2', {
          secrets: [
            { name: 'HELD', value: 'canary-new-5d1e' },
            { name: 'ADDED', value: 'canary-added-0b7f' },
          ],
        }),
        { annotations: { 'deploy.agents.dev/deployment-id': canary.id } },
      ),
      deployment(
        'canary-new',
        dockerSpec('registry.example/app:1', { secrets: [{ name: 'KEY', value: 'canary-create-e3c9' }] }),
      ),
    );
    const [patch] = await diff(file, 1);
    expect(patch).toMatchObject({
      secrets: { added: ['ADDED'], removed: ['GONE'], changedOrUnknown: ['HELD'] },
    });
    for (const output of ['table', 'json', 'yaml']) {
      const run = await cli(['diff', '-f', file, '-o', output], serviceEnv(emu.url));
      expect(run.code).toBe(1);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/canary-(held|gone|new|added|create)-/);
      expect(run.stdout).toContain('ADDED');
    }
  });

  it('reports a bad file or service as one line, exit 2', async () => {
    const noDeployment = manifestFile({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(oneLineError(await cli(['diff', '-f', noDeployment], serviceEnv(emu.url)), 2)).toBe(
      `agent-deploy: ${noDeployment} holds no Deployment (deploy.agents.dev/v1alpha1)`,
    );
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'kind: Deployment\n  spec: [\n');
    expect(oneLineError(await cli(['diff', '-f', broken], serviceEnv(emu.url)), 2)).toMatch(
      /^agent-deploy: .*broken\.yaml is not valid YAML: /,
    );
    const file = manifestFile(deployment('x', dockerSpec('registry.example/app:1')));
    expect(oneLineError(await cli(['diff', '-f', file], { AGENT_DEPLOY_API_KEY: 'dev-key' }), 2)).toBe(
      'agent-deploy: no service URL: pass --service-url or set AGENT_DEPLOY_SERVICE_URL',
    );
    const refused = oneLineError(await cli(['diff', '-f', file], serviceEnv(emu.url, 'sk-wrong-key')), 2);
    expect(refused).toMatch(
      /^agent-deploy: the service refused the API key from environment variable AGENT_DEPLOY_API_KEY \(GET \/v2\/deployments: 401 /,
    );
    expect(refused).not.toContain('sk-wrong-key');
    expect(oneLineError(await cli(['diff', '-f', file], serviceEnv('http://127.0.0.1:1')), 2)).toMatch(
      /^agent-deploy: cannot reach the service at http:\/\/127\.0\.0\.1:1 \(GET /,
    );
  });
});

describe('an entry the service answers broken', () => {
  it('is an error naming the field (exit 2), not a deployment gone to be made again', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    const stub = await startStub((req, res) => {
      res.setHeader('content-type', 'application/json');
      // Read by id, the bound deployment's entry lacks its name: it breaks the interface. By name, the
      // service has nothing: taking the entry for gone would show a create.
      const byId = req.url.includes('deployment_ids=');
      res.end(JSON.stringify({ resources: byId ? [{ id, status: 'READY' }] : [], offset: 0 }));
    });
    try {
      const file = manifestFile(
        deployment('broken', dockerSpec('registry.example/app:1'), {
          annotations: { 'deploy.agents.dev/deployment-id': id },
        }),
      );
      const run = await cli(['diff', '-f', file], serviceEnv(stub.url));
      expect(oneLineError(run, 2)).toContain('resources[0]');
      expect(run.stdout).not.toContain('create');
      expect(stub.requests.every((r) => r.method === 'GET')).toBe(true);
    } finally {
      await stub.close();
    }
  });
});
