import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Document, parse, parseAllDocuments } from 'yaml';
import { DeploymentSpec } from '../../../src/api/deployment.ts';
import { defaultSeedIds } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, stepMs: 0 });
});
afterAll(() => emu.close());

const installed = defaultSeedIds.installedIntegration;
const managed = defaultSeedIds.managedIntegration;

describe('agent-deploy repos', () => {
  it('lists the repositories of every integration', async () => {
    const run = await cli(['repos'], serviceEnv(emu.url));
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^OWNER\s+NAME\s+DEFAULT-BRANCH\s+URL\s+INTEGRATION\s+ID$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/))).toEqual([
      ['acme', 'support-agent', 'main', 'https://github.com/acme/support-agent', installed, '501'],
      ['acme', 'research-agent', 'main', 'https://github.com/acme/research-agent', installed, '502'],
    ]);
  });

  it('uses the hosted path with --managed, and one integration with --integration', async () => {
    const hosted = JSON.parse(
      (await cli(['repos', '--managed', '-o', 'json'], serviceEnv(emu.url))).stdout,
    ) as {
      name: string;
      host_integration_id: string;
    }[];
    expect(hosted.map((r) => [r.name, r.host_integration_id])).toEqual([
      ['chat-agent', managed],
      ['sql-agent', managed],
    ]);
    const one = await cli(['repos', '--integration', installed, '-o', 'yaml'], serviceEnv(emu.url));
    expect((parse(one.stdout) as { url: string }[]).map((r) => r.url)).toEqual([
      'https://github.com/acme/support-agent',
      'https://github.com/acme/research-agent',
    ]);
  });

  it('says which integration was not found', async () => {
    const unknown = 'cccccccc-0000-4000-8000-000000000099';
    expect(oneLineError(await cli(['repos', '--integration', unknown], serviceEnv(emu.url)))).toMatch(
      new RegExp(
        `^agent-deploy: integration ${unknown} not found \\(GET /v1/integrations/codehost/\\{integration_id\\}/repos: 404 `,
      ),
    );
    // A managed integration answers only on the hosted path.
    expect(oneLineError(await cli(['repos', '--integration', managed], serviceEnv(emu.url)))).toContain(
      `integration ${managed} not found`,
    );
  });

  it('prints paste-ready Deployment manifests', async () => {
    const run = await cli(['repos', '--manifest'], serviceEnv(emu.url));
    expect(run.code).toBe(0);
    const docs = parseAllDocuments(run.stdout) as Document[];
    const manifests = docs.map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS() as { apiVersion: string; kind: string; metadata: { name: string }; spec: unknown };
    });
    expect(manifests.map((m) => [m.apiVersion, m.kind, m.metadata.name])).toEqual([
      ['deploy.agents.dev/v1alpha1', 'Deployment', 'support-agent'],
      ['deploy.agents.dev/v1alpha1', 'Deployment', 'research-agent'],
    ]);
    for (const m of manifests) {
      const spec = DeploymentSpec.parse(m.spec);
      expect(spec.source).toBe('codehost');
      expect(spec.repository?.owner).toBe('acme');
      expect(spec.repository?.name).toBe(m.metadata.name);
    }
  });

  it('prints the manifest of one repository with --repo, hosted when --managed', async () => {
    const run = await cli(
      ['repos', '--managed', '--manifest', '--repo', 'hosted-acme/sql-agent'],
      serviceEnv(emu.url),
    );
    const manifest = parse(run.stdout) as { metadata: { name: string }; spec: unknown };
    expect(manifest.metadata.name).toBe('sql-agent');
    expect(DeploymentSpec.parse(manifest.spec).repository).toEqual({
      owner: 'hosted-acme',
      name: 'sql-agent',
      hosted: true,
    });
    expect(oneLineError(await cli(['repos', '--repo', 'acme/nope'], serviceEnv(emu.url)))).toBe(
      'agent-deploy: repository acme/nope is in no code-host integration',
    );
  });
});
