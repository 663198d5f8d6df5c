// npm run bench -- [--n 1000] [--resync 20s] [--concurrency 8] [--unrelated-secrets 2000] [--node-options '…'] [--from-source]
// Starts the real control plane and the emulator (step 0), runs the operator as its own process,
// applies N Deployment resources, and prints: time until all Ready, service calls by endpoint against
// the floor (N creates + ⌈N/100⌉ lists), apiserver writes per resource, operator peak RSS and CPU,
// then the idle service calls per resync period. With --unrelated-secrets, the cluster first gets that
// many Helm-like 64 KB release Secrets, spread over 20 other namespaces. The operator watches every
// namespace, as deploy/ installs it.
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import {
  helmReleaseSecrets,
  idleCallsPerRefresh,
  operatorOptions,
  operatorRun,
  startOperator,
  startRig,
  waitAllReady,
} from './support.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    resync: { type: 'string', default: '20s' },
    ...operatorOptions,
    'unrelated-secrets': { type: 'string', default: '0' },
  },
});
const operatorSetup = await operatorRun(values);
const n = Number(values.n);
const unrelated = Number(values['unrelated-secrets']);
const helmNamespaces = unrelated > 0 ? Array.from({ length: 20 }, (_, i) => `helm-${i}`) : [];

const rig = await startRig(['bench', ...helmNamespaces]);
/** Writes (create/update/patch/delete) to our resources, from the apiserver's own request counter. */
const apiserverWrites = async () => {
  const res = await request(`${rig.cp.server}/metrics`, {
    headers: { authorization: `Bearer ${rig.cp.adminToken}` },
    dispatcher: new Agent({ connect: { ca: rig.cp.caData } }),
  });
  let writes = 0;
  for (const line of (await res.body.text()).split('\n')) {
    if (!line.startsWith('apiserver_request_total{') || !line.includes('group="deploy.agents.dev"')) continue;
    if (/verb="(POST|PUT|PATCH|DELETE)"/.test(line)) writes += Number(line.split(' ').at(-1));
  }
  return writes;
};

let operator: Awaited<ReturnType<typeof startOperator>> | undefined;
try {
  if (unrelated > 0) await helmReleaseSecrets(rig.kube, helmNamespaces, Math.ceil(unrelated / 20));
  operator = await startOperator(rig, {
    // Every namespace, as deploy/ installs it: one list+watch per kind, whatever the namespace count.
    namespaces: [],
    resync: values.resync!,
    ...operatorSetup,
  });

  const items = Array.from({ length: n }, (_, i) => ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: `bench-${i}`, namespace: 'bench' },
    spec: { source: 'internal_docker', sourceRevisionConfig: { imageUri: `registry.local/agent:${i}` } },
  }));
  const started = Date.now();
  await rig.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  const applied = Date.now();
  await waitAllReady(rig, 'bench');
  const allReady = Date.now();
  const createCalls = await rig.calls();
  const writes = await apiserverWrites();

  const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  const floor = n + Math.ceil(n / 100);
  console.log(
    `\nbench: ${n} Deployment resources, emulator step 0, operator --concurrency ${values.concurrency} --resync ${values.resync}`,
  );
  if (unrelated > 0)
    console.log(`cluster: ${unrelated} unrelated 64 KB Helm release Secrets in 20 other namespaces`);
  console.log(
    `machine: ${(await import('node:os')).cpus().length} cores, Node ${process.version}, ${operatorSetup.describe}`,
  );
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
  console.log(
    `operator: peak RSS ${operator.peakRssMb().toFixed(0)} MB, CPU ${operator.cpuSeconds().toFixed(1)} s`,
  );

  const idle = await idleCallsPerRefresh(rig, operator, 2);
  console.log(
    `idle: ${idle.calls} service calls over ${idle.refreshes} resync periods, ${idle.perRefresh} per period (target ⌈${n}/100⌉ = ${Math.ceil(n / 100)})`,
  );
  const mb = async (metric: string) => ((await operator!.metric(metric)) / 2 ** 20).toFixed(0);
  console.log(
    `operator after idle: peak RSS ${operator.peakRssMb().toFixed(0)} MB, RSS ${operator.rssMb().toFixed(0)} MB (JS heap ${await mb('nodejs_heap_size_used_bytes')} MB used of ${await mb('nodejs_heap_size_total_bytes')} MB, external ${await mb('nodejs_external_memory_bytes')} MB), CPU ${operator.cpuSeconds().toFixed(1)} s`,
  );
} finally {
  operator?.stop();
  await rig.stop();
}
