import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('agent-deploy providers', () => {
  it('prints an aligned table of the providers', async () => {
    const run = await cli(['providers'], serviceEnv(emu.url));
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PROVIDER\s+NAME\s+TYPE\s+PKCE\s+AUTH-METHOD\s+ID$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^github\\s+GitHub\\s+oauth2\\s+no\\s+client_secret_post\\s+${defaultSeedIds.githubProvider}$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^google\\s+Google\\s+oidc\\s+S256\\s+client_secret_basic\\s+${defaultSeedIds.googleProvider}$`,
        ),
      ),
    ]);
    // Aligned: every column starts at the same offset on every line.
    const idColumn = lines[0]!.lastIndexOf('ID');
    for (const line of lines.slice(1)) expect(line.indexOf('eeeeeeee')).toBe(idColumn);
    expect(run.stdout).not.toContain('\u001b[');
  });

  it('prints the service objects as JSON and YAML', async () => {
    const json = await cli(['providers', '-o', 'json'], serviceEnv(emu.url));
    const providers = JSON.parse(json.stdout) as { id: string; provider_id: string; uses_pkce: boolean }[];
    expect(providers.map((p) => [p.provider_id, p.id, p.uses_pkce])).toEqual([
      ['github', defaultSeedIds.githubProvider, false],
      ['google', defaultSeedIds.googleProvider, true],
    ]);
    const yaml = await cli(['providers', '--output', 'yaml'], serviceEnv(emu.url));
    expect(parse(yaml.stdout)).toEqual(providers);
  });

  it('takes the key from --api-key-file and the tenant from --tenant-id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-cli-'));
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, 'dev-key\n');
    const run = await cli([
      'providers',
      '--service-url',
      emu.url,
      '--api-key-file',
      keyFile,
      '--tenant-id',
      defaultSeedIds.tenant,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('github');
    const otherTenant = await cli(
      ['providers', '--tenant-id', defaultSeedIds.otherTenant],
      serviceEnv(emu.url),
    );
    expect(oneLineError(otherTenant)).toMatch(
      /^agent-deploy: the service refused access \(GET \/v2\/auth\/providers: 403 /,
    );
  });

  it('says the key was refused, without showing it', async () => {
    const run = await cli(['providers'], serviceEnv(emu.url, 'sk-not-a-key'));
    const line = oneLineError(run);
    expect(line).toMatch(
      /^agent-deploy: the service refused the API key from environment variable AGENT_DEPLOY_API_KEY \(GET \/v2\/auth\/providers: 401 /,
    );
    expect(line).not.toContain('sk-not-a-key');

    const keyFile = join(mkdtempSync(join(tmpdir(), 'agent-deploy-cli-')), 'key');
    writeFileSync(keyFile, 'sk-not-a-key-either\n');
    const fromFile = oneLineError(
      await cli(['providers', '--service-url', emu.url, '--api-key-file', keyFile]),
    );
    expect(fromFile).toContain(
      `the service refused the API key from file ${keyFile} (GET /v2/auth/providers: 401 `,
    );
    expect(fromFile).not.toContain('sk-not-a-key-either');
  });

  it('names the URL it could not reach', async () => {
    const run = await cli(['providers'], serviceEnv('http://127.0.0.1:1/api'));
    expect(oneLineError(run)).toMatch(
      /^agent-deploy: cannot reach the service at http:\/\/127\.0\.0\.1:1\/api \(GET \/v2\/auth\/providers: ECONNREFUSED/,
    );
  });

  it('asks for the service URL and the API key', async () => {
    expect(oneLineError(await cli(['providers'], { AGENT_DEPLOY_API_KEY: 'dev-key' }))).toBe(
      'agent-deploy: no service URL: pass --service-url or set AGENT_DEPLOY_SERVICE_URL',
    );
    expect(oneLineError(await cli(['providers', '--service-url', emu.url]))).toBe(
      'agent-deploy: no API key: pass --api-key-file or set AGENT_DEPLOY_API_KEY',
    );
    expect(
      oneLineError(await cli(['providers', '--service-url', emu.url, '--api-key-file', '/nonexistent/key'])),
    ).toMatch(/^agent-deploy: cannot read the API key file \/nonexistent\/key: ENOENT/);
  });
});
