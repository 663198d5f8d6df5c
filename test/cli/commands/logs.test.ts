// `agent-deploy logs` run as its own process against the emulator: which log, newest last, filters,
// --follow to the end of a phase (exit 2 when it failed) and until Ctrl-C (exit 130), one-line errors.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeploymentArg, phaseEnd } from '../../../src/cli/commands/logs.ts';
import { defaultSeedKeys } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { Deployment } from '../../../src/service/wire.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let fast: RunningEmulator;
let slow: RunningEmulator;
const clients: ServiceClient[] = [];
let broken: Deployment;

async function create(emu: RunningEmulator, name: string, image: string): Promise<Deployment> {
  const client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
  clients.push(client);
  return client.createDeployment({
    name,
    source: 'internal_docker',
    source_config: {},
    source_revision_config: { image_uri: image },
    secrets: [{ name: 'TOKEN', value: 'not-in-any-log' }],
  });
}

beforeAll(async () => {
  fast = await startEmulator({ port: 0, stepMs: 0 });
  // Steps long enough that a follow sees lines arrive, short enough for a test.
  slow = await startEmulator({ port: 0, stepMs: 300 });
  broken = await create(fast, 'broken', 'agent:fail-build');
  await create(fast, 'crashing', 'agent:fail-deploy');
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await fast.close();
  await slow.close();
});

const lines = (stdout: string) => stdout.trimEnd().split('\n');

describe('agent-deploy logs', () => {
  it('prints a build log oldest first, newest last, by name or by id', async () => {
    const byName = await cli(['logs', 'broken', '--build'], serviceEnv(fast.url));
    expect(byName.code).toBe(0);
    expect(lines(byName.stdout)[0]).toBe(`Build started for revision ${broken.latest_revision_id}`);
    expect(lines(byName.stdout).at(-1)).toBe('Build failed: exit code 1');
    const byId = await cli(
      ['logs', broken.id, '--build', '--revision', broken.latest_revision_id!],
      serviceEnv(fast.url),
    );
    expect(byId).toEqual(byName);
  });

  it('filters by level and text, keeps the last lines, and prints JSON lines', async () => {
    const errors = await cli(
      ['logs', 'broken', '--build', '--level', 'error', '--query', 'FOO==9.9'],
      serviceEnv(fast.url),
    );
    expect(lines(errors.stdout)).toEqual([
      'ERROR: Could not find a version that satisfies the requirement foo==9.9 (from versions: none)',
      'ERROR: No matching distribution found for foo==9.9',
    ]);
    const tail = await cli(['logs', 'broken', '--build', '--tail', '2', '-o', 'json'], serviceEnv(fast.url));
    const entries = lines(tail.stdout).map((l) => JSON.parse(l) as { message: string; level: string });
    expect(entries.map((e) => e.message)).toEqual([
      "The command '/bin/sh -c pip install -r requirements.txt' returned a non-zero code: 1",
      'Build failed: exit code 1',
    ]);
    const recent = await cli(
      ['logs', 'broken', '--build', '--since', '1h', '--timestamps'],
      serviceEnv(fast.url),
    );
    expect(lines(recent.stdout)[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z Build started for revision /);
  });

  it('prints the deploy logs of the deployment without --build, and never a secret value', async () => {
    const run = await cli(['logs', 'crashing'], serviceEnv(fast.url));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Secrets set: TOKEN (values not shown)');
    expect(lines(run.stdout).at(-1)).toBe('Deploy failed: the container is crash-looping (CrashLoopBackOff)');
    expect(run.stdout).not.toContain('not-in-any-log');
  });

  it('takes the Deployment of a manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logs-'));
    const file = join(dir, 'broken.yaml');
    writeFileSync(
      file,
      'apiVersion: deploy.agents.dev/v1alpha1\nkind: Deployment\nmetadata: {name: broken}\n' +
        'spec: {source: internal_docker, sourceRevisionConfig: {imageUri: "agent:fail-build"}}\n',
    );
    const run = await cli(['logs', '--filename', file, '--build', '--tail', '1'], serviceEnv(fast.url));
    expect(run.stdout).toBe('Build failed: exit code 1\n');
  });

  it('--follow prints the build as it comes and ends with it: exit 2 when it failed', async () => {
    const d = await create(slow, 'followed', 'agent:fail-build');
    const started = performance.now();
    const run = await cli(['logs', 'followed', '--build', '-f'], serviceEnv(slow.url));
    // The build ends 5 steps after the create: the follow waited for it.
    expect(performance.now() - started).toBeGreaterThan(600);
    expect(run.code).toBe(2);
    expect(lines(run.stdout)[0]).toBe(`Build started for revision ${d.latest_revision_id}`);
    expect(lines(run.stdout).at(-1)).toBe('Build failed: exit code 1');
    expect(new Set(lines(run.stdout)).size).toBe(lines(run.stdout).length);
    const ok = await create(slow, 'followed-ok', 'agent:1');
    const done = await cli(['logs', 'followed-ok', '--deploy', '-f'], serviceEnv(slow.url));
    expect([done.code, lines(done.stdout).at(-1)]).toEqual([
      0,
      `Revision ${ok.latest_revision_id} is serving`,
    ]);
  });

  it('--follow of a deployment’s deploy logs stops cleanly on Ctrl-C (SIGINT) with exit 130', async () => {
    await create(fast, 'serving', 'agent:1');
    const node = new URL('../../../node_modules/.bin/node', import.meta.url).pathname;
    const bin = new URL('../../../bin/agent-deploy.js', import.meta.url).pathname;
    const child = spawn(node, [bin, 'logs', 'serving', '-f'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...serviceEnv(fast.url) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await expect.poll(() => stdout, { timeout: 15_000 }).toContain('is serving');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toBe('');
  });

  it('fails with one line: unknown deployment or revision, bad flags, no service', async () => {
    expect(oneLineError(await cli(['logs', 'nope'], serviceEnv(fast.url)))).toContain(
      'deployment nope not found',
    );
    expect(
      oneLineError(
        await cli(
          ['logs', 'broken', '--build', '--revision', '00000000-0000-4000-8000-000000000000'],
          serviceEnv(fast.url),
        ),
      ),
    ).toContain('revision 00000000-0000-4000-8000-000000000000 of deployment');
    expect(oneLineError(await cli(['logs'], serviceEnv(fast.url)))).toContain(
      'give DEPLOYMENT or --filename',
    );
    expect(oneLineError(await cli(['logs', 'broken', '--since', 'soon'], serviceEnv(fast.url)))).toContain(
      'not a duration',
    );
    expect(
      oneLineError(await cli(['logs', 'broken', '--build', '--deploy'], serviceEnv(fast.url))),
    ).toContain('cannot be used with');
    expect(oneLineError(await cli(['logs', 'broken'], serviceEnv('http://127.0.0.1:9')))).toContain(
      'cannot reach the service',
    );
  });
});

describe('parseDeploymentArg and phaseEnd', () => {
  it('tells an id, a resource in the cluster and a name apart', () => {
    const id = '13b58fad-7236-4ff3-82aa-83824a204631';
    expect(parseDeploymentArg(id)).toEqual({ id });
    expect(parseDeploymentArg('deployment/web')).toEqual({ resource: 'web' });
    expect(parseDeploymentArg('deployments.deploy.agents.dev/web')).toEqual({ resource: 'web' });
    expect(parseDeploymentArg('team/web')).toEqual({ name: 'team/web' });
  });

  it('ends a build follow once the build is over, a deploy follow once the revision settles', () => {
    expect(phaseEnd('build', 'BUILDING')).toBe('running');
    expect(phaseEnd('build', 'AWAITING_DEPLOY')).toBe('ok');
    expect(phaseEnd('build', 'DEPLOY_FAILED')).toBe('ok');
    expect(phaseEnd('build', 'BUILD_FAILED')).toBe('failed');
    expect(phaseEnd('deploy', 'DEPLOYING')).toBe('running');
    expect(phaseEnd('deploy', 'DEPLOY_FAILED')).toBe('failed');
    expect(phaseEnd('deploy', 'DEPLOYED')).toBe('ok');
  });
});
