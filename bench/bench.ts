// npm run bench -- [--n 1000] [--resync 20s]
// Starts the real control plane and the emulator (step 0), runs the operator as its own process,
// applies N Deployment resources, and prints: time until all Ready, service calls by endpoint against
// the floor (N creates + ⌈N/100⌉ lists), apiserver writes per resource, operator peak RSS and CPU,
// then service calls during two idle resync periods.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Agent, request } from 'undici';
import { parseDuration } from '../src/cli/duration.ts';
import { startControlPlane } from '../src/controlplane/controlplane.ts';
import { installCrds } from '../src/controlplane/crds.ts';
import { startEmulator } from '../src/emulator/server.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    resync: { type: 'string', default: '20s' },
    concurrency: { type: 'string', default: '8' },
  },
});
const n = Number(values.n);
const resyncMs = parseDuration(values.resync!);
const run = promisify(execFile);

const cp = await startControlPlane({ progress: (l) => console.error(l) });
const emu = await startEmulator({ port: 0, stepMs: 0 });
const kubectl = async (args: string[], input?: string) => {
  const p = run('kubectl', ['--kubeconfig', cp.kubeconfigPath, ...args], { maxBuffer: 1 << 30 });
  if (input !== undefined) p.child.stdin!.end(input);
  return (await p).stdout;
};
const calls = async () =>
  ((await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as { calls: Record<string, number> })
    .calls;
/** Writes (create/update/patch/delete) to our resources, from the apiserver's own request counter. */
const apiserverWrites = async () => {
  const res = await request(`${cp.server}/metrics`, {
    headers: { authorization: `Bearer ${cp.adminToken}` },
    dispatcher: new Agent({ connect: { ca: cp.caData } }),
  });
  let writes = 0;
  for (const line of (await res.body.text()).split('\n')) {
    if (!line.startsWith('apiserver_request_total{') || !line.includes('group="deploy.agents.dev"')) continue;
    if (/verb="(POST|PUT|PATCH|DELETE)"/.test(line)) writes += Number(line.split(' ').at(-1));
  }
  return writes;
};

let operator: ReturnType<typeof spawn> | undefined;
try {
  await installCrds(cp.kubeconfigPath);
  await kubectl(['create', 'namespace', 'bench']);

  operator = spawn(
    process.execPath,
    [
      fileURLToPath(new URL('../bin/agent-deploy.js', import.meta.url)),
      'operator',
      '--kubeconfig',
      cp.kubeconfigPath,
      '--service-url',
      emu.url,
      '--namespace',
      'bench',
      '--resync',
      values.resync!,
      '--concurrency',
      values.concurrency!,
      '--health-port',
      '0',
      '--log-level',
      'warn',
    ],
    {
      env: { ...process.env, AGENT_DEPLOY_API_KEY: 'dev-key' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const pid = operator.pid!;
  await sleep(2000); // caches synced

  const items = Array.from({ length: n }, (_, i) => ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: `bench-${i}`, namespace: 'bench' },
    spec: { source: 'internal_docker', sourceRevisionConfig: { imageUri: `registry.local/agent:${i}` } },
  }));
  const started = Date.now();
  await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  const applied = Date.now();
  let ready = 0;
  while (ready < n) {
    await sleep(1000);
    const list = JSON.parse(
      await kubectl(['get', 'deployments.deploy.agents.dev', '-n', 'bench', '-o', 'json']),
    ) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
    ready = list.items.filter((d) =>
      d.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    ).length;
    if (Date.now() - started > 600_000) throw new Error(`only ${ready}/${n} Ready after 10 minutes`);
  }
  const allReady = Date.now();
  const createCalls = await calls();
  const writes = await apiserverWrites();
  const cpu = () => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(stat[11]) + Number(stat[12])) / 100;
  };
  const rss = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

  const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  const floor = n + Math.ceil(n / 100);
  console.log(
    `\nbench: ${n} Deployment resources, emulator step 0, operator --concurrency ${values.concurrency} --resync ${values.resync}`,
  );
  console.log(`machine: ${(await import('node:os')).cpus().length} cores, Node ${process.version}`);
  console.log(
    `time to all Ready: ${((allReady - started) / 1000).toFixed(1)} s (create of ${n} objects took ${((applied - started) / 1000).toFixed(1)} s)`,
  );
  console.log('service calls, create to Ready:');
  for (const [endpoint, count] of Object.entries(createCalls).sort())
    console.log(`  ${endpoint.padEnd(50)} ${count}`);
  console.log(
    `  ${'total'.padEnd(50)} ${total(createCalls)}  (floor ${floor}; ratio ${(total(createCalls) / floor).toFixed(2)})`,
  );
  console.log(
    `apiserver writes to our resources: ${writes} (${(writes / n).toFixed(2)} per resource, the create included)`,
  );
  console.log(`operator: peak RSS ${rss().toFixed(0)} MB, CPU ${cpu().toFixed(1)} s`);

  await fetch(`${emu.adminUrl}/_emulator/calls/reset`, { method: 'POST' });
  await sleep(2 * resyncMs + 2000);
  const idle = await calls();
  console.log(
    `idle, two resync periods (${(2 * resyncMs) / 1000} s): ${total(idle)} calls (target ${2 * Math.ceil(n / 100)})`,
  );
  for (const [endpoint, count] of Object.entries(idle).sort())
    console.log(`  ${endpoint.padEnd(50)} ${count}`);
  console.log(`operator after idle: peak RSS ${rss().toFixed(0)} MB, CPU ${cpu().toFixed(1)} s`);
} finally {
  operator?.kill('SIGTERM');
  await emu.close();
  await cp.stop();
}
