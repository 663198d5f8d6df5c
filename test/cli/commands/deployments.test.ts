import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultSeedKeys } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { CreateDeploymentRequest, Deployment } from '../../../src/service/wire.ts';
import { deploymentBody, json, startStub } from '../../service/http-stub.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let emu: RunningEmulator;
let client: ServiceClient;
const bulk = 103;
let prod: Deployment;
let broken: Deployment;

const docker = (
  name: string,
  image = 'registry.example/agent:1',
  extra: object = {},
): CreateDeploymentRequest => ({
  name,
  source: 'internal_docker',
  source_config: { deployment_type: 'dev', ...extra },
  source_revision_config: { image_uri: image },
  secrets: [],
});

beforeAll(async () => {
  emu = await startEmulator({ port: 0, stepMs: 0 });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
  for (let i = 0; i < bulk; i++) await client.createDeployment(docker(`bulk-${String(i).padStart(3, '0')}`));
  prod = await client.createDeployment(
    docker('alpha-prod', 'registry.example/agent:1', { deployment_type: 'prod' }),
  );
  // Its only revision fails to build: it never becomes READY and has no image version.
  broken = await client.createDeployment(docker('broken', 'registry.example/fail-build:1'));
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

const names = async (args: string[]) => {
  const run = await cli(['deployments', ...args, '-o', 'json'], serviceEnv(emu.url));
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as Deployment[]).map((d) => d.name);
};

const listCalls = async () => {
  const state = (await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as {
    calls: Record<string, number>;
  };
  return state.calls['GET /v2/deployments'] ?? 0;
};

describe('agent-deploy deployments', () => {
  it('walks every page', async () => {
    await fetch(`${emu.adminUrl}/_emulator/calls/reset`, { method: 'POST' });
    const all = await names([]);
    expect(all).toHaveLength(bulk + 2);
    expect(new Set(all).size).toBe(bulk + 2);
    expect(all).toContain('bulk-000');
    expect(all).toContain('bulk-102');
    expect(await listCalls()).toBe(2);
  });

  it('prints a table with the deployment columns', async () => {
    const run = await cli(['deployments', '--name-contains', 'alpha'], serviceEnv(emu.url));
    const [header, row, ...rest] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME\s+ID\s+SOURCE\s+STATUS\s+LATEST-REVISION\s+ACTIVE-REVISION\s+UPDATED$/);
    expect(rest).toEqual([]);
    const [current] = await client.listAllDeployments({ deployment_ids: [prod.id] });
    expect(row!.split(/\s+/)).toEqual([
      'alpha-prod',
      prod.id,
      'internal_docker',
      'READY',
      current!.latest_revision_id,
      current!.active_revision_id,
      current!.updated_at,
    ]);
    const failed = await cli(['deployments', '--name-contains', 'broken'], serviceEnv(emu.url));
    expect(failed.stdout.trimEnd().split('\n')[1]!.split(/\s+/).slice(3, 6)).toEqual([
      'AWAITING_DATABASE',
      expect.stringMatching(/^[0-9a-f-]{36}$/),
      '<none>',
    ]);
  });

  it('prints YAML equal to the JSON', async () => {
    const json = await cli(['deployments', '--name-contains', 'bulk-00', '-o', 'json'], serviceEnv(emu.url));
    const yaml = await cli(['deployments', '--name-contains', 'bulk-00', '-o', 'yaml'], serviceEnv(emu.url));
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    expect((JSON.parse(json.stdout) as unknown[]).length).toBe(10);
  });

  it('filters on the service and limits what it prints', async () => {
    // Separate processes: run them side by side.
    const [byName, byStatus, byType, byImage, byIds, seven, pastOnePage] = await Promise.all([
      names(['--name-contains', 'BULK-01']),
      names(['--status', 'AWAITING_DATABASE']),
      names(['--deployment-type', 'prod']),
      names(['--image-version', '1.0.0']),
      names(['--id', prod.id, '--id', `${broken.id},${prod.id}`]),
      names(['--limit', '7']),
      names(['--limit', '101']),
    ]);
    expect(byName.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `bulk-01${i}`));
    expect(byStatus).toEqual(['broken']);
    expect(byType).toEqual(['alpha-prod']);
    expect(byImage).toHaveLength(bulk + 1);
    expect(byImage).not.toContain('broken');
    expect(byIds.sort()).toEqual(['alpha-prod', 'broken']);
    expect(seven).toHaveLength(7);
    expect(pastOnePage).toHaveLength(101);
  });

  it('refuses a bad filter value', async () => {
    const run = await cli(['deployments', '--status', 'SLEEPING'], serviceEnv(emu.url));
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('SLEEPING');
    expect(oneLineError(await cli(['deployments'], serviceEnv(emu.url, 'nope')))).toMatch(
      /^agent-deploy: the service refused the API key from environment variable AGENT_DEPLOY_API_KEY \(GET \/v2\/deployments: 401 /,
    );
  });
});

describe('agent-deploy deployments, against what the hosted service answers', () => {
  const zero = {
    ...deploymentBody,
    name: 'zero',
    status: 'AWAITING_FINAL_DELETE',
    source_config: { deployment_type: 'dev_zero' },
  };
  const { id: _id, ...broken } = { ...deploymentBody, name: 'broken-entry' };

  it('shows values the interface does not list as sent, and names an entry it had to leave out', async () => {
    const stub = await startStub((_req, res) => json(res, 200, { resources: [zero, broken], offset: 2 }));
    try {
      const asJson = await cli(['deployments', '-o', 'json'], serviceEnv(stub.url));
      expect(JSON.parse(asJson.stdout)).toEqual([zero]);
      expect(asJson.code).toBe(1);
      expect(asJson.stderr).toMatch(
        /^agent-deploy: left out 1 deployment whose entry breaks the service interface: resources\[1\] \(name broken-entry\): resources\[1\]\.id: [^\n]+\n$/,
      );
      const table = await cli(['deployments'], serviceEnv(stub.url));
      const [, row, ...rest] = table.stdout.trimEnd().split('\n');
      expect(rest).toEqual([]);
      expect(row!.split(/\s+/).slice(0, 4)).toEqual([
        'zero',
        zero.id,
        'internal_docker',
        'AWAITING_FINAL_DELETE',
      ]);
    } finally {
      await stub.close();
    }
  });

  it('exits 0 when every entry holds, unknown values and all', async () => {
    const stub = await startStub((_req, res) => json(res, 200, { resources: [zero], offset: 1 }));
    try {
      const run = await cli(['deployments', '-o', 'yaml'], serviceEnv(stub.url));
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(parse(run.stdout)).toEqual([zero]);
    } finally {
      await stub.close();
    }
  });
});

describe('secret values', () => {
  const canary = `canary-${Math.random().toString(36).slice(2)}`;

  it('are hidden in every output format unless --show-secrets is given', async () => {
    await client.createDeployment({
      ...docker('with-secret'),
      secrets: [{ name: 'API_TOKEN', value: canary }],
    });
    const args = ['deployments', '--name-contains', 'with-secret'];
    for (const format of ['table', 'json', 'yaml']) {
      const run = await cli([...args, '-o', format], serviceEnv(emu.url));
      expect(run.code, format).toBe(0);
      expect(run.stdout, format).toContain('with-secret');
      expect(run.stdout + run.stderr, format).not.toContain(canary);
    }
    const json = await cli([...args, '-o', 'json'], serviceEnv(emu.url));
    expect((JSON.parse(json.stdout) as Deployment[])[0]!.secrets).toEqual([
      { name: 'API_TOKEN', value: '<hidden>' },
    ]);
    const shown = await cli([...args, '-o', 'yaml', '--show-secrets'], serviceEnv(emu.url));
    expect((parse(shown.stdout) as Deployment[])[0]!.secrets).toEqual([{ name: 'API_TOKEN', value: canary }]);
  });
});
