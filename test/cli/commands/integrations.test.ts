import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultSeedIds } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, stepMs: 0 });
});
afterAll(() => emu.close());

describe('agent-deploy integrations', () => {
  it('prints a table of the integrations', async () => {
    const run = await cli(['integrations'], serviceEnv(emu.url));
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      'NAME          ID                                     INSTALLATION-ID',
      `acme          ${defaultSeedIds.installedIntegration}   1001`,
      `hosted-acme   ${defaultSeedIds.managedIntegration}   2001`,
    ]);
  });

  it('prints JSON and YAML', async () => {
    const expected = [
      { id: defaultSeedIds.installedIntegration, installation_id: 1001, name: 'acme' },
      { id: defaultSeedIds.managedIntegration, installation_id: 2001, name: 'hosted-acme' },
    ];
    expect(JSON.parse((await cli(['integrations', '-o', 'json'], serviceEnv(emu.url))).stdout)).toEqual(
      expected,
    );
    expect(parse((await cli(['integrations', '-o', 'yaml'], serviceEnv(emu.url))).stdout)).toEqual(expected);
  });

  it('refuses an unknown output format', async () => {
    const run = await cli(['integrations', '-o', 'xml'], serviceEnv(emu.url));
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('xml');
  });

  it('reports a refused key as one line', async () => {
    expect(oneLineError(await cli(['integrations'], serviceEnv(emu.url, 'wrong')))).toMatch(
      /^agent-deploy: the service refused the API key from environment variable AGENT_DEPLOY_API_KEY \(GET \/v1\/integrations\/codehost\/install: 401 /,
    );
  });
});
