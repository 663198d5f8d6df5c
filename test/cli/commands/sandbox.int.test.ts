// `agent-deploy sandbox` as a newcomer runs it: its own control plane, emulator and operator process.
// Every example under examples/ is applied with the real kubectl and must become Ready; Ctrl-C must
// leave no process behind. The cloud run also captures the status fixtures of the Argo CD health
// checks (test/argocd/fixtures/) when AGENT_DEPLOY_WRITE_FIXTURES=1 (then format them: biome check --write).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { annotations, group, type KindName, kindNames } from '../../../src/api/constants.ts';
import { kubectl as kubectlWith } from '../../support/kube.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const examplesDir = join(root, 'examples');
const fixturesDir = join(root, 'test', 'argocd', 'fixtures');
const writeFixtures = process.env.AGENT_DEPLOY_WRITE_FIXTURES === '1';

/** The controller folder of each kind, as src/controllers/all.ts imports it. */
const controllerDirs: Record<KindName, string> = {
  Deployment: 'deployment',
  Listener: 'listener',
  AgentConnection: 'agent-connection',
  OAuthToken: 'oauth-token',
  Workspace: 'workspace',
  ClusterWorkspace: 'workspace',
};
const allTs = readFileSync(join(root, 'src', 'controllers', 'all.ts'), 'utf8');
const registered = (kind: KindName) => allTs.includes(`from './${controllerDirs[kind]}/`);

interface Example {
  file: string;
  kinds: { kind: string; name: string; ours: boolean }[];
}

function readExamples(dir: string): Example[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({
      file: join(dir, f),
      kinds: parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((doc) => {
        const o = doc.toJSON() as { apiVersion: string; kind: string; metadata: { name: string } };
        return { kind: o.kind, name: o.metadata.name, ours: o.apiVersion.startsWith(`${group}/`) };
      }),
    }));
}

const noController = (kind: KindName) =>
  `no ${kind} controller in src/controllers/all.ts yet (src/controllers/${controllerDirs[kind]}/)`;

/** Why an example cannot be checked yet: a kind in it whose controller all.ts does not register. */
function missingController(example: Example): string | undefined {
  const kind = example.kinds.find((k) => k.ours && !registered(k.kind as KindName))?.kind;
  return kind && noController(kind as KindName);
}

interface Sandbox {
  dir: string;
  kubeconfig: string;
  emulatorUrl: string;
  output: string[];
  child: ChildProcess;
}

async function startSandbox(mode: 'cloud' | 'self-hosted', stepMs: number): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-sandbox-'));
  const readyFile = join(dir, 'ready');
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin', 'agent-deploy.js'),
      'sandbox',
      '--dir',
      dir,
      '--mode',
      mode,
      '--step-ms',
      String(stepMs),
      '--emulator-port',
      '0',
      '--ready-file',
      readyFile,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  const collect = (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const deadline = Date.now() + 120_000;
  while (!existsSync(readyFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the sandbox did not come up:\n${output.join('\n')}`);
    }
    await sleep(200);
  }
  const [, emulatorUrl, kubeconfig] = readFileSync(readyFile, 'utf8').trim().split(' ');
  return { dir, kubeconfig: kubeconfig!, emulatorUrl: emulatorUrl!, output, child };
}

const controlPlanePorts = (output: string[]) =>
  output
    .join('\n')
    .match(/etcd on 127\.0\.0\.1:(\d+), starting kube-apiserver on https:\/\/127\.0\.0\.1:(\d+)/);

/** The control plane's own directory (etcd data, sa.key, tokens.csv), read off its running etcd. */
function controlPlaneDir(output: string[]): string {
  const ports = controlPlanePorts(output);
  expect(ports, 'the sandbox prints the control plane ports').not.toBeNull();
  const etcd = execFileSync(
    'pgrep',
    ['-a', '-f', `^\\S*/etcd .*--listen-client-urls=http://127.0.0.1:${ports![1]}`],
    {
      encoding: 'utf8',
    },
  );
  const dir = etcd.match(/--data-dir=(\S+)\/etcd\b/)?.[1];
  expect(dir).toMatch(/\/agent-deploy-cp-/);
  expect(existsSync(join(dir!, 'sa.key'))).toBe(true);
  return dir!;
}

/** Processes of this sandbox still alive: its servers (by port), the operator and itself (by directory). */
function leftovers(sandbox: Sandbox): string[] {
  const ports = controlPlanePorts(sandbox.output);
  expect(ports, 'the sandbox prints the control plane ports').not.toBeNull();
  const patterns = [
    `^\\S*/etcd .*--listen-client-urls=http://127.0.0.1:${ports![1]}`,
    `^\\S*/kube-apiserver .*--secure-port=${ports![2]}`,
    sandbox.dir,
  ];
  return patterns.flatMap((pattern) => {
    try {
      return execFileSync('pgrep', ['-a', '-f', pattern], { encoding: 'utf8' }).trim().split('\n');
    } catch {
      return []; // pgrep exits 1 when nothing matches
    }
  });
}

async function stopAndCheck(sandbox: Sandbox, signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP'): Promise<void> {
  const cpDir = controlPlaneDir(sandbox.output);
  const exited = once(sandbox.child, 'exit');
  sandbox.child.kill(signal);
  const [code] = await exited;
  expect(code).toBe(0);
  expect(sandbox.output).toContain('sandbox stopped');
  expect(leftovers(sandbox)).toEqual([]);
  await expect(fetch(`${sandbox.emulatorUrl}/v2/deployments`)).rejects.toThrow();
  expect(existsSync(sandbox.kubeconfig)).toBe(false);
  expect(existsSync(cpDir), `${cpDir} (etcd data, sa.key, tokens.csv) is removed`).toBe(false);
  rmSync(sandbox.dir, { recursive: true, force: true });
}

/**
 * Applies every example whose kinds all have a controller, as a user would apply the folder (they may
 * refer to each other, e.g. a Secret), then checks each one: every resource in it becomes Ready.
 */
function applyAndWait(sandbox: () => Sandbox, examples: Example[]) {
  const kubectl = (args: string[], input?: string) =>
    kubectlWith(args, { kubeconfig: sandbox().kubeconfig, ...(input === undefined ? {} : { input }) });
  beforeAll(async () => {
    for (const example of examples.filter((e) => !missingController(e)))
      await kubectl(['apply', '-f', example.file]);
  });
  for (const example of examples) {
    const name = example.file.slice(examplesDir.length + 1);
    it(`applies ${name} and every resource in it becomes Ready`, async (ctx) => {
      const missing = missingController(example);
      if (missing) ctx.skip(`${name}: ${missing}`);
      for (const { kind, name: crName } of example.kinds.filter((k) => k.ours)) {
        const ref = `${kindNames[kind as KindName].plural}.${group}/${crName}`;
        await kubectl(['wait', '--for=condition=Ready', '--timeout=90s', ref]);
        const cr = JSON.parse((await kubectl(['get', ref, '-o', 'json'])).stdout);
        expect(cr.status.observedGeneration).toBe(cr.metadata.generation);
        saveFixture(`${kind.toLowerCase()}-ready`, cr);
      }
      const applied = await kubectl(['get', '-f', example.file, '-o', 'name']);
      expect(applied.stdout.trim().split('\n')).toHaveLength(example.kinds.length);
    });
  }
  return kubectl;
}

/** A CR as kubectl shows it, without the bookkeeping fields that only add noise to a fixture. */
function saveFixture(name: string, cr: { metadata: Record<string, unknown> }): void {
  if (!writeFixtures) return;
  const { managedFields: _m, ...metadata } = cr.metadata as { managedFields?: unknown };
  const kept = { ...cr, metadata };
  const annotationsOf = (kept.metadata as { annotations?: Record<string, string> }).annotations;
  delete annotationsOf?.['kubectl.kubernetes.io/last-applied-configuration'];
  mkdirSync(fixturesDir, { recursive: true });
  writeFileSync(join(fixturesDir, `${name}.json`), `${JSON.stringify(kept, null, 2)}\n`);
}

const conditionOf = (
  cr: { status?: { conditions?: { type: string; status: string; reason: string }[] } },
  type: string,
) => cr.status?.conditions?.find((c) => c.type === type);

const deployment = (name: string, imageUri: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: `${group}/v1alpha1`,
    kind: 'Deployment',
    metadata: { name },
    spec: { source: 'internal_docker', sourceRevisionConfig: { imageUri }, ...extra },
  });

describe('agent-deploy sandbox (cloud)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox('cloud', 500);
  });
  afterAll(() => {
    if (sandbox?.child.exitCode === null) sandbox.child.kill('SIGKILL');
  });

  it('prints how to use it', () => {
    const text = sandbox.output.join('\n');
    expect(text).toContain(`export KUBECONFIG=${sandbox.kubeconfig}`);
    expect(text).toContain(
      `export AGENT_DEPLOY_SERVICE_URL=${sandbox.emulatorUrl} AGENT_DEPLOY_API_KEY=dev-key`,
    );
    expect(text).toContain(`curl -H 'X-Api-Key: dev-key' ${sandbox.emulatorUrl}/v2/deployments`);
    expect(text).toMatch(/operator: running, log in \S+operator\.log/);
  });

  const kubectl = applyAndWait(() => sandbox, readExamples(examplesDir));

  it('shows every phase a health check must read', async () => {
    const get = async (name: string) =>
      JSON.parse((await kubectl(['get', `deployments.${group}/${name}`, '-o', 'json'])).stdout);

    // Just created: nothing written to status yet, which the CRD's default shows as `status: {}`. The
    // apply's answer is the object as stored, before any reconcile.
    const fresh = JSON.parse(
      (await kubectl(['apply', '-o', 'json', '-f', '-'], deployment('phase-building', 'agent:1'))).stdout,
    );
    expect(fresh.status).toEqual({});
    saveFixture('deployment-new', fresh);

    await kubectl([
      'wait',
      '--for=condition=Reconciling',
      '--timeout=30s',
      `deployments.${group}/phase-building`,
    ]);
    const building = await get('phase-building');
    expect(conditionOf(building, 'Reconciling')?.status).toBe('True');
    expect(conditionOf(building, 'Ready')?.status).toBe('False');
    saveFixture('deployment-reconciling', building);

    await kubectl(['apply', '-f', '-'], deployment('phase-failed', 'agent:fail-build'));
    await kubectl(['wait', '--for=condition=Stalled', '--timeout=60s', `deployments.${group}/phase-failed`]);
    const failed = await get('phase-failed');
    expect(conditionOf(failed, 'Stalled')).toMatchObject({ status: 'True', reason: 'BuildFailed' });
    saveFixture('deployment-stalled', failed);

    // A spec change: the stored object has the new generation and the status of the old one.
    await kubectl(['wait', '--for=condition=Ready', '--timeout=60s', `deployments.${group}/phase-building`]);
    const stale = JSON.parse(
      (await kubectl(['apply', '-o', 'json', '-f', '-'], deployment('phase-building', 'agent:2'))).stdout,
    );
    expect(stale.status.observedGeneration).toBeLessThan(stale.metadata.generation);
    expect(conditionOf(stale, 'Ready')?.status).toBe('True');
    saveFixture('deployment-stale-generation', stale);

    await kubectl(['annotate', `deployments.${group}/internal-template`, `${annotations.paused}=true`]);
    await kubectl([
      'wait',
      `--for=jsonpath={.status.conditions[?(@.type=="Synced")].reason}=ReconcilePaused`,
      '--timeout=30s',
      `deployments.${group}/internal-template`,
    ]);
    const paused = await get('internal-template');
    expect(paused.metadata.annotations[annotations.paused]).toBe('true');
    saveFixture('deployment-paused', paused);
  });

  it('shows a stalled OAuthToken (the service has no such token)', async (ctx) => {
    if (!registered('OAuthToken')) ctx.skip(noController('OAuthToken'));
    const token = `oauthtokens.${group}/phase-unknown-token`;
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: `${group}/v1alpha1`,
        kind: 'OAuthToken',
        metadata: { name: 'phase-unknown-token' },
        spec: { tokenId: '99999999-0000-4000-8000-000000000009', isDefault: false },
      }),
    );
    await kubectl(['wait', '--for=condition=Stalled', '--timeout=30s', token]);
    const stalled = JSON.parse((await kubectl(['get', token, '-o', 'json'])).stdout);
    expect(conditionOf(stalled, 'Ready')?.status).toBe('False');
    saveFixture('oauthtoken-stalled', stalled);
  });

  it('stops everything on Ctrl-C', async () => {
    await stopAndCheck(sandbox, 'SIGINT');
  });
});

describe('agent-deploy sandbox (self-hosted)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox('self-hosted', 100);
  });
  afterAll(() => {
    if (sandbox?.child.exitCode === null) sandbox.child.kill('SIGKILL');
  });

  applyAndWait(() => sandbox, readExamples(join(examplesDir, 'self-hosted')));

  it('stops everything on SIGTERM', async () => {
    await stopAndCheck(sandbox, 'SIGTERM');
  });
});

describe('agent-deploy sandbox stops cleanly however it is ended', () => {
  it('on SIGHUP (its terminal closed)', async () => {
    const sandbox = await startSandbox('cloud', 500);
    try {
      await stopAndCheck(sandbox, 'SIGHUP');
    } finally {
      if (sandbox.child.exitCode === null) sandbox.child.kill('SIGKILL');
    }
  });

  // `agent-deploy sandbox | head -1`: the reader goes after the first line; the next line meets a closed pipe.
  it('when its stdout pipe closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-sandbox-'));
    const child = spawn(
      process.execPath,
      [join(root, 'bin', 'agent-deploy.js'), 'sandbox', '--dir', dir, '--emulator-port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const [first] = (await once(child.stdout!, 'data')) as [Buffer];
      const output = [first.toString().split('\n')[0]!];
      child.stdout!.destroy();
      const cpDir = controlPlaneDir(output);
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      const ports = controlPlanePorts(output)!;
      const gone = async () => {
        for (const pattern of [
          `--listen-client-urls=http://127.0.0.1:${ports[1]}`,
          `--secure-port=${ports[2]}`,
          dir,
        ])
          try {
            execFileSync('pgrep', ['-f', '--', pattern], { stdio: 'ignore' });
            return false;
          } catch {}
        return !existsSync(cpDir);
      };
      // What stop() did not get to (a server starting as we stopped) goes within seconds, via supervisor and janitor.
      const deadline = Date.now() + 15_000;
      while (!(await gone()) && Date.now() < deadline) await sleep(250);
      expect(await gone(), `no process of the sandbox left, ${cpDir} removed`).toBe(true);
      expect(existsSync(join(dir, 'kubeconfig'))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
