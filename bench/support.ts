// What `npm run bench` and `npm run soak` share: a real control plane and the emulator, the operator as
// its own process with /metrics, and the figures read from them (service calls, refreshes, RSS, CPU).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { DEPLOYMENTS } from '../src/controllers/resources.ts';
import { type ControlPlane, startControlPlane } from '../src/controlplane/controlplane.ts';
import { installCrds } from '../src/controlplane/crds.ts';
import { freePort } from '../src/controlplane/ports.ts';
import { type RunningEmulator, startEmulator } from '../src/emulator/server.ts';
import { KubeClient } from '../src/runtime/kube.ts';
import { SECRETS } from '../src/runtime/kube-objects.ts';

const run = promisify(execFile);

export interface Rig {
  cp: ControlPlane;
  emu: RunningEmulator;
  kube: KubeClient;
  kubectl(args: string[], input?: string): Promise<string>;
  /** Service calls by endpoint since the emulator started (or its counters were reset). */
  calls(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startRig(namespaces: string[]): Promise<Rig> {
  const cp = await startControlPlane({ progress: (l) => console.error(l) });
  const emu = await startEmulator({ port: 0, stepMs: 0 });
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfigPath);
  const kube = await KubeClient.fromKubeConfig(kc);
  const kubectl = async (args: string[], input?: string) => {
    const p = run('kubectl', ['--kubeconfig', cp.kubeconfigPath, ...args], { maxBuffer: 1 << 30 });
    if (input !== undefined) p.child.stdin!.end(input);
    return (await p).stdout;
  };
  await installCrds(cp.kubeconfigPath);
  for (const ns of namespaces) await kubectl(['create', 'namespace', ns]);
  return {
    cp,
    emu,
    kube,
    kubectl,
    calls: async () =>
      ((await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as { calls: Record<string, number> })
        .calls,
    async stop() {
      await kube.close();
      await emu.close();
      await cp.stop();
    },
  };
}

export interface OperatorHandle {
  pid: number;
  /** Peak RSS (VmHWM) in MB. */
  peakRssMb(): number;
  /** Current RSS (VmRSS) in MB. */
  rssMb(): number;
  cpuSeconds(): number;
  metric(name: string): Promise<number>;
  /** Resolves right after the batched observer finished a refresh; returns the refresh count. */
  afterRefresh(): Promise<number>;
  stop(): void;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** The environment the image gives the operator (the Dockerfile's final-stage ENV lines): V8 and glibc flags. */
export const containerEnv: Record<string, string> = Object.fromEntries(
  [
    ...readFileSync(join(root, 'Dockerfile'), 'utf8')
      .split(/^FROM /m)
      .at(-1)!
      .matchAll(/^ENV (\w+)=(?:"([^"]*)"|(\S*))$/gm),
  ].map((m) => [m[1]!, m[2] ?? m[3]!]),
);
const containerNodeOptions = containerEnv.NODE_OPTIONS ?? '';

/** The operator's command-line options, shared by bench and soak (node:util parseArgs). */
export const operatorOptions = {
  concurrency: { type: 'string', default: '8' },
  // The operator's V8 flags; the container image's by default (the driver keeps its own NODE_OPTIONS).
  'node-options': { type: 'string', default: containerNodeOptions },
  // Run the TypeScript sources rather than the JavaScript the image runs (≈ 28 MB more RSS).
  'from-source': { type: 'boolean', default: false },
} as const;

interface OperatorValues {
  concurrency?: string;
  'node-options'?: string;
  'from-source'?: boolean;
}

/** How the operator runs, from those options: its entry point, concurrency, and a line saying so. */
export async function operatorRun(values: OperatorValues) {
  const nodeOptions = values['node-options'] ?? containerNodeOptions;
  const fromSource = values['from-source'] ?? false;
  const malloc = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']
    .map((k) => `${k}=${containerEnv[k]}`)
    .join(' ');
  return {
    entry: await operatorEntry(fromSource),
    concurrency: values.concurrency ?? '8',
    nodeOptions,
    describe: `NODE_OPTIONS=${nodeOptions} ${malloc}, ${fromSource ? 'TypeScript sources' : 'built JavaScript (as in the image)'}`,
  };
}

/**
 * The operator's entry point as the image runs it: the sources built to JavaScript (Dockerfile, build
 * stage) in a scratch directory laid out like /app. With `fromSource`, the TypeScript sources instead.
 */
export async function operatorEntry(fromSource: boolean): Promise<string> {
  if (fromSource) return join(root, 'bin/agent-deploy.js');
  const app = mkdtempSync(join(tmpdir(), 'agent-deploy-built-'));
  process.on('exit', () => rmSync(app, { recursive: true, force: true }));
  await run(join(root, 'node_modules/.bin/tsc'), [
    '-p',
    join(root, 'tsconfig.build.json'),
    '--outDir',
    join(app, 'dist'),
  ]);
  for (const entry of ['node_modules', 'package.json', 'crds'])
    symlinkSync(join(root, entry), join(app, entry));
  return join(app, 'dist/cli/main.js');
}

export async function startOperator(
  rig: Rig,
  options: { entry: string; namespaces: string[]; resync: string; concurrency: string; nodeOptions: string },
): Promise<OperatorHandle> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      options.entry,
      'operator',
      '--kubeconfig',
      rig.cp.kubeconfigPath,
      '--service-url',
      rig.emu.url,
      ...options.namespaces.flatMap((n) => ['--namespace', n]),
      '--resync',
      options.resync,
      '--concurrency',
      options.concurrency,
      '--health-port',
      String(port),
      '--log-level',
      'warn',
    ],
    {
      env: {
        ...process.env,
        ...containerEnv,
        AGENT_DEPLOY_API_KEY: 'dev-key',
        NODE_OPTIONS: options.nodeOptions,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const pid = child.pid!;
  const status = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  const metric = async (name: string) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(
      new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN,
    );
  };
  for (let i = 0; ; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (i > 600) throw new Error('operator not ready within 60 s');
    await sleep(100);
  }
  return {
    pid,
    peakRssMb: () => status('VmHWM'),
    rssMb: () => status('VmRSS'),
    cpuSeconds() {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(stat[11]) + Number(stat[12])) / 100;
    },
    metric,
    async afterRefresh() {
      // A workspace's counter appears with its first refresh: none yet is 0.
      const refreshes = async () =>
        (await metric('agent_deploy_observer_refreshes_total{workspace="default"}')) || 0;
      const seen = await refreshes();
      for (;;) {
        await sleep(20);
        const now = await refreshes();
        if (now !== seen) return now;
      }
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/**
 * Idle cost: service calls over `periods` observer refreshes, counted from just after one refresh to
 * just after another (so the ±10 % timer jitter cannot add or drop a period).
 */
export async function idleCallsPerRefresh(rig: Rig, operator: OperatorHandle, periods: number) {
  const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  const r0 = await operator.afterRefresh();
  const c0 = total(await rig.calls());
  let r1 = r0;
  while (r1 < r0 + periods) r1 = await operator.afterRefresh();
  const c1 = total(await rig.calls());
  return { refreshes: r1 - r0, calls: c1 - c0, perRefresh: (c1 - c0) / (r1 - r0) };
}

/** Runs `fn` over `items` with at most `limit` calls in flight; returns how many it ran. */
export async function inPool<T>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
  return items.length;
}

/**
 * Helm's release Secrets, `perNamespace` in each namespace: type helm.sh/release.v1, one per release
 * revision (10 revisions a release, as Helm keeps by default), ~64 KB of release data each.
 */
export async function helmReleaseSecrets(
  kube: KubeClient,
  namespaces: string[],
  perNamespace: number,
): Promise<void> {
  const secrets = namespaces.flatMap((namespace) =>
    Array.from({ length: perNamespace }, (_, i) => {
      const release = `release-${Math.floor(i / 10)}`;
      const revision = String((i % 10) + 1);
      return {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'helm.sh/release.v1',
        metadata: {
          name: `sh.helm.release.v1.${release}.v${revision}`,
          namespace,
          labels: { owner: 'helm', name: release, status: 'superseded', version: revision },
        },
        data: { release: randomBytes(48 * 1024).toString('base64') },
      };
    }),
  );
  await inPool(secrets, 8, (secret) => kube.create(SECRETS, secret));
}

interface Listed {
  metadata: { generation?: number };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

/** The Deployment resources of `namespace` that are Ready for their current generation, and all of them. */
export async function readyCount(rig: Rig, namespace: string): Promise<{ ready: number; all: number }> {
  const { items } = await rig.kube.listAll<Listed & { metadata: { name: string } }>(DEPLOYMENTS, {
    namespace,
  });
  const ready = items.filter((d) =>
    d.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === d.metadata.generation,
    ),
  ).length;
  return { ready, all: items.length };
}

/** Waits until every Deployment resource of `namespace` is Ready for its current generation. */
export async function waitAllReady(rig: Rig, namespace: string, timeoutMs = 600_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { ready, all } = await readyCount(rig, namespace);
    if (ready === all) return;
    if (Date.now() - started > timeoutMs)
      throw new Error(`only ${ready}/${all} Ready after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}
