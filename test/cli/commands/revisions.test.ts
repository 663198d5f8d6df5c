import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultSeedKeys } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { Deployment, Revision } from '../../../src/service/wire.ts';
import { deploymentBody, json, revisionBody, startStub } from '../../service/http-stub.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let emu: RunningEmulator;
let client: ServiceClient;
let app: Deployment;

const advance = (ms: number) =>
  fetch(`${emu.adminUrl}/_emulator/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance_ms: ms }),
  });

beforeAll(async () => {
  emu = await startEmulator({ port: 0, stepMs: 0 });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
  app = await client.createDeployment({
    name: 'rev-app',
    source: 'internal_docker',
    source_config: {},
    source_revision_config: { image_uri: 'registry.example/app:1' },
    secrets: [],
  });
  await advance(60_000);
  await client.patchDeployment(app.id, {
    source_revision_config: { image_uri: 'registry.example/fail-build:2' },
  });
  await advance(60_000);
  await client.patchDeployment(app.id, { source_revision_config: { image_uri: 'registry.example/app:3' } });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

const images = (revisions: Revision[]) => revisions.map((r) => r.source_revision_config.image_uri);

describe('agent-deploy revisions', () => {
  it('lists newest first by created_at, by name or by id', async () => {
    const byName = JSON.parse(
      (await cli(['revisions', 'rev-app', '-o', 'json'], serviceEnv(emu.url))).stdout,
    ) as Revision[];
    expect(images(byName)).toEqual([
      'registry.example/app:3',
      'registry.example/fail-build:2',
      'registry.example/app:1',
    ]);
    const created = byName.map((r) => Date.parse(r.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const byId = await cli(['revisions', app.id, '-o', 'yaml'], serviceEnv(emu.url));
    expect(parse(byId.stdout)).toEqual(byName);
  });

  it('prints a table and filters by status', async () => {
    const run = await cli(['revisions', 'rev-app'], serviceEnv(emu.url));
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+SOURCE\s+CREATED\s+UPDATED\s+COMMIT$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual(['DEPLOYED', 'BUILD_FAILED', 'DEPLOYED']);
    const failed = JSON.parse(
      (await cli(['revisions', 'rev-app', '--status', 'BUILD_FAILED', '-o', 'json'], serviceEnv(emu.url)))
        .stdout,
    ) as Revision[];
    expect(images(failed)).toEqual(['registry.example/fail-build:2']);
    const both = JSON.parse(
      (
        await cli(
          ['revisions', 'rev-app', '--status', 'DEPLOYED,BUILD_FAILED', '-o', 'json'],
          serviceEnv(emu.url),
        )
      ).stdout,
    ) as Revision[];
    expect(both).toHaveLength(3);
  });

  it('says when the deployment does not exist', async () => {
    expect(oneLineError(await cli(['revisions', 'rev'], serviceEnv(emu.url)))).toBe(
      'agent-deploy: deployment rev not found (no deployment has exactly that name)',
    );
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(oneLineError(await cli(['revisions', unknown], serviceEnv(emu.url)))).toMatch(
      new RegExp(
        `^agent-deploy: deployment ${unknown} not found \\(GET /v2/deployments/\\{deployment_id\\}/revisions: 404 `,
      ),
    );
  });
});

describe('agent-deploy revisions, against what the hosted service answers', () => {
  it('shows a status the interface does not list as sent, and names an entry it had to leave out', async () => {
    const rolling = { ...revisionBody, status: 'ROLLING_OUT' };
    const broken = { ...revisionBody, id: 'bbbbbbbb-0000-4000-8000-000000000002', created_at: 'yesterday' };
    const stub = await startStub((_req, res) => json(res, 200, { resources: [rolling, broken], offset: 2 }));
    try {
      const run = await cli(['revisions', deploymentBody.id], serviceEnv(stub.url));
      const [, row, ...rest] = run.stdout.trimEnd().split('\n');
      expect(rest).toEqual([]);
      expect(row!.split(/\s+/).slice(0, 2)).toEqual([rolling.id, 'ROLLING_OUT']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `agent-deploy: left out 1 revision whose entry breaks the service interface: resources[1] (id ${broken.id}): resources[1].created_at: Invalid ISO datetime\n`,
      );
    } finally {
      await stub.close();
    }
  });
});
