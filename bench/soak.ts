// npm run soak -- [--ops 10000] [--wave 500] [--live 250] [--resync 10s] [--concurrency 8] [--node-options '…'] [--from-source]
// Months of churn in minutes: against the real control plane and the emulator, a steady set of `live`
// resources stays while waves of `wave` resources are created, updated (a new image, so a new
// revision) and deleted (half with deletionPolicy Delete, half Orphan), until `ops` writes were made.
// Prints the operator's RSS and its idle service calls per resync period after the first wave and at
// the end: both must stay flat (RSS within +15 %, idle calls ⌈live/100⌉ per period).
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { DEPLOYMENTS } from '../src/controllers/resources.ts';
import {
  idleCallsPerRefresh,
  inPool,
  type OperatorHandle,
  operatorOptions,
  operatorRun,
  type Rig,
  startOperator,
  startRig,
  waitAllReady,
} from './support.ts';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '10000' },
    wave: { type: 'string', default: '500' },
    live: { type: 'string', default: '250' },
    resync: { type: 'string', default: '10s' },
    ...operatorOptions,
  },
});
const operatorSetup = await operatorRun(values);
const ops = Number(values.ops);
const wave = Number(values.wave);
const live = Number(values.live);
const ns = 'soak';
/** Writes in flight at once. */
const writers = 16;

const deployment = (name: string, image: string, deletionPolicy: 'Delete' | 'Orphan') => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name, namespace: ns },
  spec: { source: 'internal_docker', sourceRevisionConfig: { imageUri: image }, deletionPolicy },
});

async function waitGone(rig: Rig, names: Set<string>): Promise<void> {
  for (;;) {
    const { items } = await rig.kube.listAll(DEPLOYMENTS, { namespace: ns });
    if (!items.some((d) => names.has(d.metadata.name))) return;
    await sleep(500);
  }
}

/** One wave: create, wait Ready; update, wait Ready at the new generation; delete, wait gone. */
async function churn(rig: Rig, index: number): Promise<number> {
  const names = Array.from({ length: wave }, (_, i) => `wave${index}-${i}`);
  const policy = (i: number) => (i % 2 === 0 ? 'Delete' : 'Orphan');
  let done = await inPool(
    names.map((name, i) => deployment(name, `agent:${index}.0`, policy(i))),
    writers,
    (d) => rig.kube.create(DEPLOYMENTS, d),
  );
  await waitAllReady(rig, ns);
  done += await inPool(names, writers, (name) =>
    rig.kube.mergePatch(DEPLOYMENTS, name, ns, {
      spec: { sourceRevisionConfig: { imageUri: `agent:${index}.1` } },
    }),
  );
  await waitAllReady(rig, ns);
  done += await inPool(names, writers, (name) => rig.kube.delete(DEPLOYMENTS, name, ns));
  await waitGone(rig, new Set(names));
  return done;
}

/** RSS (median of samples taken while idle) and idle calls per resync period. */
async function idleFigures(rig: Rig, operator: OperatorHandle) {
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(operator.rssMb()), 250);
  const idle = await idleCallsPerRefresh(rig, operator, 3);
  clearInterval(sampler);
  samples.sort((a, b) => a - b);
  return { rss: samples[Math.floor(samples.length / 2)]!, ...idle };
}

const rig = await startRig([ns]);
let operator: OperatorHandle | undefined;
try {
  operator = await startOperator(rig, {
    namespaces: [ns],
    resync: values.resync!,
    ...operatorSetup,
  });
  const started = Date.now();
  let done = await inPool(
    Array.from({ length: live }, (_, i) => deployment(`live-${i}`, 'agent:live', 'Orphan')),
    writers,
    (d) => rig.kube.create(DEPLOYMENTS, d),
  );
  await waitAllReady(rig, ns);
  let waves = 0;
  done += await churn(rig, waves++); // warm-up: the first wave sizes the heap
  const first = await idleFigures(rig, operator);
  while (done < ops) done += await churn(rig, waves++);
  const last = await idleFigures(rig, operator);
  const target = Math.ceil(live / 100);
  const state = (await (await fetch(`${rig.emu.adminUrl}/_emulator/state`)).json()) as {
    deployments: unknown[];
  };

  console.log(
    `\nsoak: ${done} writes in ${waves} waves of ${wave} (create, update, delete) around ${live} live resources`,
  );
  console.log(
    `operator --resync ${values.resync} --concurrency ${values.concurrency}, ${operatorSetup.describe}`,
  );
  console.log(
    `took ${((Date.now() - started) / 1000).toFixed(0)} s; service deployments left: ${state.deployments.length} (${live} live + ${waves * Math.floor(wave / 2)} orphaned)`,
  );
  const line = (when: string, f: typeof first) =>
    `${when}: RSS ${f.rss.toFixed(0)} MB; idle ${f.calls} calls over ${f.refreshes} periods = ${f.perRefresh} per period (⌈${live}/100⌉ = ${target})`;
  console.log(line('after the first wave', first));
  console.log(line('at the end          ', last));
  const growth = ((last.rss - first.rss) / first.rss) * 100;
  console.log(
    `RSS change: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % (bound +15 %); operator peak RSS ${operator.peakRssMb().toFixed(0)} MB`,
  );
  const flat = growth <= 15 && first.perRefresh === target && last.perRefresh === target;
  console.log(flat ? 'flat: yes' : 'flat: NO');
  process.exitCode = flat ? 0 : 1;
} finally {
  operator?.stop();
  await rig.stop();
}
