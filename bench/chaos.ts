// npm run chaos -- [--n 500] [--kills 20] [--apiserver-restarts 2] [--settle 5m] [--seed 1] [--profile interface|hosted]
// Starts the real control plane and the emulator (revision step 20 ms), runs the operator as its own
// process, applies N Deployment resources, then for a while: 20 % injected service faults (rotating
// between 5xx, 429 + Retry-After, latency and connection resets), kube-apiserver crashed and restarted,
// the operator SIGKILLed and started again — all at random moments. Then the faults stop and it checks:
// no resource has more than one service deployment, every resource is Ready within the settle time, and
// the operator is quiet once everything is Ready. Exits non-zero when an invariant fails.
// `runChaos` is also the CI integration test (test/bench/chaos.int.test.ts) at a smaller size.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { parseDuration } from '../src/cli/duration.ts';
import { startControlPlane } from '../src/controlplane/controlplane.ts';
import { installCrds } from '../src/controlplane/crds.ts';
import { type Profile, profiles } from '../src/emulator/config.ts';
import type { FaultConfig } from '../src/emulator/faults.ts';
import { startEmulator } from '../src/emulator/server.ts';

export interface ChaosOptions {
  n: number;
  kills: number;
  apiserverRestarts: number;
  /** How long faults, kills and restarts go on. */
  chaosMs: number;
  /** How long after the faults stop every resource must be Ready. */
  settleMs: number;
  /** Seeds the random moments, so a failing run can be repeated. */
  seed: number;
  /** The emulator's profile: the interface as written, or the hosted service's behaviour (default interface). */
  profile?: Profile;
  progress?: (line: string) => void;
}

export interface ChaosResult {
  n: number;
  /** Resource names with more than one service deployment. */
  duplicates: string[];
  /** Resources not Ready when the settle time ran out. */
  notReady: string[];
  /** Resources whose status.deploymentId is not the one service deployment of their name. */
  mismatched: string[];
  /** Seconds from the faults stopping until all were Ready (null: not all were). */
  settledS: number | null;
  totalCalls: number;
  callsByEndpoint: Record<string, number>;
  /** Service calls by endpoint in the quiet window after all were Ready (null: never all Ready). */
  idleCalls: Record<string, number> | null;
  kills: number;
  apiserverRestarts: number;
  operatorLog: string[];
}

/** 20 % of requests go wrong in each configuration; they take turns. */
export const faultRotation: Partial<FaultConfig>[] = [
  { error_rate: 0.2, statuses: [500, 502, 503] },
  { error_rate: 0.2, statuses: [429], retry_after_s: 1 },
  { reset_rate: 0.2 },
  { error_rate: 0.1, reset_rate: 0.1, latency_ms: 200, statuses: [500, 503, 429] },
];

const IDLE_WINDOW_MS = 10_000;

/** Mulberry32: a small deterministic PRNG so the moments of a run can be replayed with --seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface StateDeployment {
  id: string;
  name: string;
}
interface CrList {
  items: {
    metadata: { name: string };
    status?: { deploymentId?: string; conditions?: { type: string; status: string }[] };
  }[];
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const progress = options.progress ?? (() => {});
  const random = prng(options.seed);
  const run = promisify(execFile);
  const cp = await startControlPlane({ progress });
  const emu = await startEmulator({ port: 0, stepMs: 20, profile: options.profile ?? 'interface' });
  const kubectl = async (args: string[], input?: string) => {
    const p = run('kubectl', ['--kubeconfig', cp.kubeconfigPath, ...args], { maxBuffer: 1 << 30 });
    if (input !== undefined) p.child.stdin!.end(input);
    return (await p).stdout;
  };
  const admin = (path: string, init?: RequestInit) => fetch(`${emu.adminUrl}/_emulator/${path}`, init);
  const setFaults = (config: Partial<FaultConfig> | null) =>
    config
      ? admin('faults', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(config),
        })
      : admin('faults', { method: 'DELETE' });
  const state = async () =>
    (await (await admin('state')).json()) as {
      deployments: StateDeployment[];
      calls: Record<string, number>;
    };

  const operatorLog: string[] = [];
  let operator: ReturnType<typeof spawn> | undefined;
  const startOperator = () => {
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('../bin/agent-deploy.js', import.meta.url)),
        'operator',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--service-url',
        emu.url,
        '--namespace',
        'chaos',
        '--resync',
        '10m',
        '--health-port',
        '0',
        '--log-level',
        'info',
      ],
      { env: { ...process.env, AGENT_DEPLOY_API_KEY: 'dev-key' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line) operatorLog.push(line);
      if (operatorLog.length > 5000) operatorLog.splice(0, operatorLog.length - 5000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    operator = child;
  };
  const killOperator = async (signal: NodeJS.Signals) => {
    const child = operator;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };

  let rotation: NodeJS.Timeout | undefined;
  try {
    await installCrds(cp.kubeconfigPath);
    await kubectl(['create', 'namespace', 'chaos']);

    // Faults from the start: the creates themselves meet them.
    let turn = 0;
    await setFaults(faultRotation[0]!);
    rotation = setInterval(() => {
      turn = (turn + 1) % faultRotation.length;
      void setFaults(faultRotation[turn]!).catch(() => {});
    }, 1500);
    startOperator();

    const items = Array.from({ length: options.n }, (_, i) => ({
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: `chaos-${i}`, namespace: 'chaos' },
      spec: {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: `registry.local/agent:${i}` },
        secrets: [{ name: 'TOKEN', value: `value-${i}` }],
      },
    }));
    await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    progress(`chaos: ${options.n} resources created; faults on`);

    // Random moments in the chaos window, done in time order.
    const events = [
      ...Array.from({ length: options.kills }, () => ({ at: random() * options.chaosMs, kind: 'kill' })),
      ...Array.from({ length: options.apiserverRestarts }, () => ({
        at: random() * options.chaosMs,
        kind: 'apiserver',
      })),
    ].sort((a, b) => a.at - b.at);
    const chaosStart = Date.now();
    let kills = 0;
    let restarts = 0;
    for (const event of events) {
      const wait = chaosStart + event.at - Date.now();
      if (wait > 0) await sleep(wait);
      if (event.kind === 'kill') {
        await killOperator('SIGKILL');
        kills++;
        progress(`chaos: operator SIGKILLed (${kills}/${options.kills})`);
        startOperator();
      } else {
        await cp.restartApiserver({ crash: true });
        restarts++;
        progress(`chaos: kube-apiserver crashed and restarted (${restarts}/${options.apiserverRestarts})`);
      }
    }
    const left = chaosStart + options.chaosMs - Date.now();
    if (left > 0) await sleep(left);
    clearInterval(rotation);
    rotation = undefined;
    await setFaults(null);
    const faultsStopped = Date.now();
    progress('chaos: faults stopped; settling');

    const listResources = async () =>
      JSON.parse(
        await kubectl(['get', 'deployments.deploy.agents.dev', '-n', 'chaos', '-o', 'json']),
      ) as CrList;
    const isReady = (cr: CrList['items'][number]) =>
      cr.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    let list = await listResources();
    let settledS: number | null = null;
    for (;;) {
      const ready = list.items.filter(isReady).length;
      if (ready === options.n) {
        settledS = (Date.now() - faultsStopped) / 1000;
        break;
      }
      if (Date.now() - faultsStopped > options.settleMs) break;
      await sleep(1000);
      list = await listResources();
    }
    progress(`chaos: ${list.items.filter(isReady).length}/${options.n} Ready`);

    let idleCalls: Record<string, number> | null = null;
    if (settledS !== null) {
      const before = (await state()).calls;
      await sleep(IDLE_WINDOW_MS);
      const after = (await state()).calls;
      idleCalls = Object.fromEntries(
        Object.entries(after)
          .map(([endpoint, count]) => [endpoint, count - (before[endpoint] ?? 0)] as const)
          .filter(([, count]) => count > 0),
      );
    }
    const final = await state();
    const byName = new Map<string, string[]>();
    for (const d of final.deployments) byName.set(d.name, [...(byName.get(d.name) ?? []), d.id]);
    const duplicates = [...byName].filter(([, ids]) => ids.length > 1).map(([name]) => name);
    const mismatched = list.items
      .filter((cr) => {
        const ids = byName.get(cr.metadata.name) ?? [];
        return ids.length !== 1 || cr.status?.deploymentId !== ids[0];
      })
      .map((cr) => cr.metadata.name);
    return {
      n: options.n,
      duplicates,
      notReady: list.items.filter((cr) => !isReady(cr)).map((cr) => cr.metadata.name),
      mismatched,
      settledS,
      totalCalls: Object.values(final.calls).reduce((a, b) => a + b, 0),
      callsByEndpoint: final.calls,
      idleCalls,
      kills,
      apiserverRestarts: restarts,
      operatorLog,
    };
  } finally {
    if (rotation) clearInterval(rotation);
    await killOperator('SIGTERM');
    await emu.close();
    await cp.stop();
  }
}

function idleTotal(result: ChaosResult): number {
  return result.idleCalls ? Object.values(result.idleCalls).reduce((a, b) => a + b, 0) : 0;
}

/** The invariants; an empty list means the run passed. */
export function chaosFailures(result: ChaosResult): string[] {
  const failures: string[] = [];
  if (result.duplicates.length > 0)
    failures.push(`duplicate service deployments for ${result.duplicates.join(', ')}`);
  if (result.notReady.length > 0)
    failures.push(`${result.notReady.length} not Ready: ${result.notReady.slice(0, 20).join(', ')}`);
  if (result.mismatched.length > 0)
    failures.push(
      `status.deploymentId is not the service deployment of the name: ${result.mismatched.slice(0, 20).join(', ')}`,
    );
  // Everything Ready and resync 10 m: a quiet operator makes at most the ⌈N/100⌉ lists of a fresh start.
  const idle = idleTotal(result);
  if (idle > Math.ceil(result.n / 100))
    failures.push(
      `${idle} service calls in ${IDLE_WINDOW_MS / 1000} s after all were Ready: ${JSON.stringify(result.idleCalls)}`,
    );
  return failures;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '500' },
      kills: { type: 'string', default: '20' },
      'apiserver-restarts': { type: 'string', default: '2' },
      duration: { type: 'string', default: '90s' },
      settle: { type: 'string', default: '5m' },
      seed: { type: 'string', default: String(Date.now() % 100_000) },
      profile: { type: 'string', default: 'interface' },
    },
  });
  if (!(profiles as readonly string[]).includes(values.profile!))
    throw new Error(`--profile: one of ${profiles.join(', ')}, not ${values.profile}`);
  const options: ChaosOptions = {
    n: Number(values.n),
    kills: Number(values.kills),
    apiserverRestarts: Number(values['apiserver-restarts']),
    chaosMs: parseDuration(values.duration!),
    settleMs: parseDuration(values.settle!),
    seed: Number(values.seed),
    profile: values.profile as Profile,
    progress: (line) => console.error(line),
  };
  const result = await runChaos(options);
  const failures = chaosFailures(result);
  console.log(
    `\nchaos: ${result.n} Deployment resources, emulator profile ${options.profile}, seed ${options.seed}, ` +
      `${values.duration} of 20 % service faults ` +
      `(5xx, 429 + Retry-After, latency, resets), ${result.kills} operator SIGKILLs, ` +
      `${result.apiserverRestarts} kube-apiserver crashes`,
  );
  console.log(`duplicates (service deployments per resource > 1): ${result.duplicates.length}`);
  console.log(
    `not Ready ${values.settle} after faults stopped: ${result.notReady.length}` +
      (result.settledS !== null ? ` (all Ready ${result.settledS.toFixed(1)} s after faults stopped)` : ''),
  );
  console.log(`status.deploymentId not matching the service: ${result.mismatched.length}`);
  console.log(`service calls in total: ${result.totalCalls}`);
  for (const [endpoint, count] of Object.entries(result.callsByEndpoint).sort())
    console.log(`  ${endpoint.padEnd(50)} ${count}`);
  console.log(
    `service calls in ${IDLE_WINDOW_MS / 1000} s after all Ready: ${idleTotal(result)} ${JSON.stringify(result.idleCalls ?? {})}`,
  );
  if (failures.length > 0) {
    console.log(`FAILED:\n  ${failures.join('\n  ')}`);
    console.log(`last operator log lines:\n${result.operatorLog.slice(-30).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('all invariants hold');
  }
}
