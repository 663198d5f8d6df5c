import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Command, InvalidArgumentError, Option } from 'commander';
import { apiVersion } from '../../api/constants.ts';
import { type ControlPlane, startControlPlane } from '../../controlplane/controlplane.ts';
import { installCrds } from '../../controlplane/crds.ts';
import { freePort } from '../../controlplane/ports.ts';
import { type ServerProcess, startServer } from '../../controlplane/process.ts';
import type { Mode } from '../../emulator/config.ts';
import { defaultSeedKeys } from '../../emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../emulator/server.ts';

interface Flags {
  dir: string;
  mode: Mode;
  stepMs: number;
  emulatorPort: number;
  readyFile?: string;
}

/** Ctrl-C, kill, and a closed terminal. */
const stopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'bin', 'agent-deploy.js');

const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
};

export function command(): Command {
  return new Command('sandbox')
    .description(
      'run a local kube-apiserver + etcd, the service emulator and the operator; print how to use kubectl against them',
    )
    .option('--dir <path>', 'where the kubeconfig and the operator log go', '.sandbox')
    .addOption(
      new Option('--mode <mode>', 'emulator mode: which sources are available')
        .choices(['cloud', 'self-hosted'])
        .default('cloud'),
    )
    .option('--step-ms <ms>', 'emulator revision lifecycle step in ms', wholeNumber, 2000)
    .option(
      '--emulator-port <port>',
      'emulator port (a free one when it is taken; 0: always a free one)',
      wholeNumber,
      8787,
    )
    .option('--ready-file <path>', 'write one line to this file once everything is up')
    .action(run);
}

async function run(flags: Flags): Promise<void> {
  const dir = resolve(flags.dir);
  mkdirSync(dir, { recursive: true });
  const kubeconfig = join(dir, 'kubeconfig');
  const operatorLog = join(dir, 'operator.log');
  rmSync(operatorLog, { force: true });
  if (flags.readyFile) rmSync(flags.readyFile, { force: true });
  // Once nobody reads stdout (`| head -1`, or a `| tee` ended by Ctrl-C), writing to it only fails: stop instead.
  let stdoutOpen = true;
  const say = (line: string) => {
    if (stdoutOpen) process.stdout.write(`${line}\n`);
  };

  let controlPlane: ControlPlane | undefined;
  let emulator: RunningEmulator | undefined;
  let operator: ServerProcess | undefined;
  const stopAll = async () => {
    await operator?.stop();
    await emulator?.close();
    await controlPlane?.stop();
    rmSync(kubeconfig, { force: true });
  };
  // A signal, or stdout's reader gone, while still starting (the first run builds for minutes) stops what is up
  // and exits at once; servers still being started die with us through their supervisor, and the control
  // plane's directory goes with them (startControlPlane's janitor).
  let stopping = false;
  const signalled = new Promise<'signal'>((done) => {
    const stop = () => {
      stopping = true;
      done('signal');
    };
    for (const signal of stopSignals) process.once(signal, stop);
    process.stdout.on('error', () => {
      stdoutOpen = false; // EPIPE: the pipe's reader is gone
      stop();
    });
  });
  const interrupt = signalled.then(async () => {
    say('stopping the sandbox…');
    await stopAll();
    say('sandbox stopped');
    process.exit(0);
  });

  let healthPort: number;
  try {
    controlPlane = await startControlPlane({ progress: say });
    writeFileSync(kubeconfig, readFileSync(controlPlane.kubeconfigPath), { mode: 0o600 });
    await installCrds(kubeconfig);
    say('control plane: CRDs installed and established');
    await applyObjects(kubeconfig, otherTenantWorkspace());
    say(`control plane: ClusterWorkspace ${otherTenant} (the emulator's second tenant) created`);
    emulator = await startEmulatorOn(flags);
    say(`emulator (${flags.mode}) listening on ${emulator.url}`);
    healthPort = await freePort();
    operator = startOperator(kubeconfig, emulator.url, healthPort, operatorLog);
    await waitOperatorReady(operator, healthPort);
    say(`operator: running, log in ${relative(process.cwd(), operatorLog) || operatorLog}`);
  } catch (err) {
    if (stopping) return interrupt; // a failure caused by stopping mid-start is no failure
    await stopAll();
    throw err;
  }
  say(instructions({ kubeconfig, emulatorUrl: emulator.url, metricsPort: healthPort, mode: flags.mode }));
  if (flags.readyFile) writeFileSync(flags.readyFile, `ready ${emulator.url} ${kubeconfig}\n`);

  const exitCode = await Promise.race([signalled, operator.exited]);
  if (exitCode === 'signal') return interrupt;
  const tail = operator.logTail(10);
  await stopAll();
  throw new Error(`the operator exited (code ${exitCode}); see ${operatorLog}:\n${tail}`);
}

/** The asked-for port, or a free one when another process holds it. */
async function startEmulatorOn(flags: Flags): Promise<RunningEmulator> {
  const options = { mode: flags.mode, stepMs: flags.stepMs };
  try {
    return await startEmulator({ ...options, port: flags.emulatorPort });
  } catch (err) {
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    process.stdout.write(`port ${flags.emulatorPort} is taken; the emulator picks a free one\n`);
    return startEmulator({ ...options, port: 0 });
  }
}

/** The operator as its own process, under the same supervisor as the servers: it cannot outlive us. */
function startOperator(
  kubeconfig: string,
  serviceUrl: string,
  healthPort: number,
  log: string,
): ServerProcess {
  // The supervisor passes our environment on; the emulator's development key is no secret.
  process.env.AGENT_DEPLOY_API_KEY = defaultSeedKeys.dev;
  return startServer(
    'operator',
    process.execPath,
    [
      bin,
      'operator',
      '--kubeconfig',
      kubeconfig,
      '--service-url',
      serviceUrl,
      '--health-port',
      String(healthPort),
    ],
    log,
  );
}

async function waitOperatorReady(operator: ServerProcess, port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (operator.hasExited()) throw new Error(`the operator exited while starting:\n${operator.logTail(10)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`the operator was not ready within ${timeoutMs / 1000}s:\n${operator.logTail(10)}`);
}

const otherTenant = 'other-tenant';

/**
 * A ClusterWorkspace for the emulator's second tenant, its key in a Secret of the operator's namespace
 * (`default`: the sandbox runs the operator outside a pod). The emulator's keys are no secret.
 */
function otherTenantWorkspace(): object[] {
  const secret = `${otherTenant}-api-key`;
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secret, namespace: 'default' },
      stringData: { 'api-key': defaultSeedKeys.otherTenant },
    },
    {
      apiVersion,
      kind: 'ClusterWorkspace',
      metadata: { name: otherTenant },
      spec: { apiKeySecretRef: { name: secret, key: 'api-key' } },
    },
  ];
}

async function applyObjects(kubeconfig: string, items: object[]): Promise<void> {
  const run = promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], {
    encoding: 'utf8',
  });
  run.child.stdin?.end(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  await run;
}

function instructions(o: {
  kubeconfig: string;
  emulatorUrl: string;
  metricsPort: number;
  mode: Mode;
}): string {
  const example = o.mode === 'self-hosted' ? 'examples/self-hosted/external-docker.yaml' : 'examples/';
  const name = o.mode === 'self-hosted' ? 'external-docker' : 'internal-docker';
  return [
    '',
    'The sandbox is up. In another shell:',
    '',
    `  export KUBECONFIG=${o.kubeconfig}`,
    `  kubectl apply -f ${example}`,
    '  kubectl get agents',
    `  kubectl wait --for=condition=Ready agentdeployment/${name} --timeout=120s`,
    '',
    `The service emulator: ${o.emulatorUrl}; for the agent-deploy CLI (deployments, revisions, diff, …):`,
    `  export AGENT_DEPLOY_SERVICE_URL=${o.emulatorUrl} AGENT_DEPLOY_API_KEY=${defaultSeedKeys.dev}`,
    `  curl -H 'X-Api-Key: ${defaultSeedKeys.dev}' ${o.emulatorUrl}/v2/deployments`,
    `Operator metrics: http://127.0.0.1:${o.metricsPort}/metrics`,
    '',
    'Ctrl-C stops everything and removes the kubeconfig and the control plane files.',
    '',
  ].join('\n');
}
