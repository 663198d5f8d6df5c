// `agent-deploy logs DEPLOYMENT`: a deployment's build or deploy log, as `kubectl logs` prints a pod's:
// oldest first, newest last; `--follow` polls for more with backoff until the phase is over or Ctrl-C.
// DEPLOYMENT is a service deployment id, its exact name, a resource in the cluster (`deployment/NAME`)
// or the Deployment of a manifest (`--filename`). The logs are the hosted service's extras beyond the
// interface (src/service/logs.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { stringify } from 'yaml';
import { z } from 'zod';
import { group, kindNames } from '../../api/constants.ts';
import type { DeploymentResource } from '../../api/deployment.ts';
import { deploymentName } from '../../controllers/deployment/desired.ts';
import { knownId } from '../../controllers/deployment/kind.ts';
import { DEPLOYMENTS } from '../../controllers/resources.ts';
import { KubeClient } from '../../runtime/kube.ts';
import { isNotFound } from '../../runtime/kube-errors.ts';
import { loadKubeconfig } from '../../runtime/kubeconfig.ts';
import type { LogTarget, ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import {
  type LogEntry,
  type LogsRequest,
  maxLogsLimit,
  terminalRevisionStatuses,
} from '../../service/wire.ts';
import { parseDuration } from '../duration.ts';
import { deploymentsIn, readManifests } from '../manifests.ts';
import type { OutputFormat } from '../output.ts';
import { addServiceOptions, notFoundAs, type ServiceFlags, withService } from '../service-options.ts';

interface Flags extends ServiceFlags {
  build?: boolean;
  deploy?: boolean;
  revision?: string;
  follow?: boolean;
  since?: number;
  level?: string;
  query?: string;
  tail?: number;
  timestamps?: boolean;
  filename?: string;
  namespace: string;
  kubeconfig?: string;
}

/** What a person or a script reads from the exit status. */
export const exitCodes = { printed: 0, error: 1, phaseFailed: 2, interrupted: 130 } as const;

const exitHelp = `
DEPLOYMENT is a service deployment id, the exact name of a service deployment,
or deployment/NAME (also deployments.${group}/NAME): the Deployment resource
NAME in the cluster (-n, --kubeconfig), whose bound id (or name) is used.
--filename FILE instead takes the one Deployment of a manifest.

Which log: without --build or --deploy, the deploy logs of all the
deployment's revisions; --build or --deploy, the log of one revision (the
latest, or --revision).

--follow keeps printing new lines until the revision's build (--build) or
deploy (--deploy) is over, or until Ctrl-C.

Exit status:
  0    the log was printed (followed: the phase ended well)
  1    an error (usage, not found, the service or the cluster failed)
  2    followed to the end of a phase that failed (BUILD_FAILED, DEPLOY_FAILED)
  130  stopped by Ctrl-C (SIGINT)`;

const resourceTypes = new Set([
  kindNames.Deployment.singular,
  kindNames.Deployment.plural,
  `${kindNames.Deployment.singular}.${group}`,
  `${kindNames.Deployment.plural}.${group}`,
]);

/** How DEPLOYMENT names the deployment: an id, a resource in the cluster, or an exact name. */
export function parseDeploymentArg(arg: string): { id: string } | { resource: string } | { name: string } {
  if (z.uuid().safeParse(arg).success) return { id: arg };
  const slash = arg.indexOf('/');
  if (slash > 0 && resourceTypes.has(arg.slice(0, slash).toLowerCase()))
    return { resource: arg.slice(slash + 1) };
  return { name: arg };
}

const positiveInt = (flag: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`${flag} must be a whole number ≥ 1, not ${value}`);
  return n;
};

export function command(): Command {
  return (
    addServiceOptions(
      new Command('logs')
        .description("Print a deployment's build or deploy log, oldest line first (as kubectl logs).")
        .argument('[deployment]', 'deployment id, exact name, or deployment/NAME in the cluster')
        .addOption(new Option('--build', 'the build log of a revision').conflicts('deploy'))
        .addOption(new Option('--deploy', 'the deploy log of a revision').conflicts('build'))
        .option('--revision <id>', 'this revision (default: the latest)')
        .option('-f, --follow', 'keep printing new lines until the phase is over or Ctrl-C')
        .option('--since <duration>', 'only lines newer than this (e.g. 30s, 10m, 1h)', (value: string) => {
          try {
            return parseDuration(value);
          } catch (err) {
            throw new InvalidArgumentError((err as Error).message);
          }
        })
        .option('--level <level>', 'only lines of this level (e.g. error)')
        .option('--query <text>', 'only lines containing this text (case-insensitive)')
        .option('--tail <n>', 'only the last n lines', positiveInt('--tail'))
        .option('--timestamps', 'start each line with its time (RFC 3339)')
        .option('--filename <file>', 'the Deployment of this manifest (instead of DEPLOYMENT)')
        .option('-n, --namespace <namespace>', 'namespace of deployment/NAME', 'default')
        .option('--kubeconfig <file>', 'cluster of deployment/NAME (default: $KUBECONFIG or ~/.kube/config)'),
    )
      .addHelpText('after', exitHelp)
      // A usage error reads as every other failure: one line, `agent-deploy: …`.
      .configureOutput({
        outputError: (text, write) => write(`agent-deploy: ${text.replace(/^error: /, '')}`),
      })
      .action(async (deployment: string | undefined, flags: Flags) => {
        if ((deployment === undefined) === (flags.filename === undefined))
          throw new Error(
            deployment === undefined
              ? 'no deployment named: give DEPLOYMENT or --filename'
              : 'give DEPLOYMENT or --filename, not both',
          );
        process.exitCode = await run(deployment, flags);
      })
  );
}

/** The service deployment id, or its exact name, of what DEPLOYMENT or --filename names. */
async function whichDeployment(
  deployment: string | undefined,
  flags: Flags,
): Promise<{ id: string } | { name: string }> {
  if (flags.filename !== undefined) {
    const found = deploymentsIn(await readManifests([flags.filename]));
    if (found.length > 1)
      throw new Error(`${flags.filename} holds ${found.length} Deployments; name one as DEPLOYMENT instead`);
    return boundOrNamed(found[0]!);
  }
  const parsed = parseDeploymentArg(deployment!);
  if (!('resource' in parsed)) return parsed;
  const kube = await KubeClient.fromKubeConfig(loadKubeconfig({ file: flags.kubeconfig }));
  try {
    const cr = await kube
      .get<DeploymentResource>(DEPLOYMENTS, parsed.resource, flags.namespace)
      .catch((err) => {
        if (isNotFound(err))
          throw new Error(`Deployment ${flags.namespace}/${parsed.resource} not found in the cluster`);
        throw err;
      });
    return boundOrNamed(cr);
  } finally {
    await kube.close();
  }
}

/** A resource's bound id when it has one (annotation or status), else the name it gives the service. */
function boundOrNamed(cr: DeploymentResource): { id: string } | { name: string } {
  const id = knownId(cr);
  return id ? { id } : { name: deploymentName(cr) };
}

async function run(deployment: string | undefined, flags: Flags): Promise<number> {
  const which = await whichDeployment(deployment, flags);
  const kind = flags.build ? 'build' : flags.deploy || flags.revision ? 'deploy' : undefined;
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  try {
    return await withService(flags, async (client) => {
      const found = await resolve(client, which);
      const revisionId = kind ? (flags.revision ?? found.latestRevisionId) : undefined;
      if (kind && !revisionId) throw new Error(`deployment ${found.label} has no revision yet`);
      const target: LogTarget =
        kind && revisionId
          ? { deploymentId: found.id, revisionId, kind }
          : { deploymentId: found.id, kind: 'deploy' };
      return await printLogs(client, target, flags, interrupt.signal);
    });
  } catch (err) {
    if (interrupt.signal.aborted) return exitCodes.interrupted;
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

async function resolve(
  client: ServiceClient,
  which: { id: string } | { name: string },
): Promise<{ id: string; label: string; latestRevisionId: string | null }> {
  if ('name' in which) {
    const d = await client.findDeploymentByName(which.name);
    if (!d) throw new Error(`deployment ${which.name} not found (no deployment has exactly that name)`);
    return { id: d.id, label: d.name, latestRevisionId: d.latest_revision_id };
  }
  const page = await client.listDeployments({ deployment_ids: [which.id], limit: 1 });
  const d = page.resources.find((x) => x.id === which.id);
  if (!d) {
    if (page.rejected[0]) throw page.rejected[0].error;
    throw new Error(`deployment ${which.id} not found`);
  }
  return { id: d.id, label: d.name, latestRevisionId: d.latest_revision_id };
}

/** The revision statuses in which a build has not ended yet. */
const building: ReadonlySet<string> = new Set(['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING']);
const failed: ReadonlySet<string> = new Set(['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED']);

/** Whether the followed phase is over (a deployment's deploy logs never are), and whether it failed. */
export function phaseEnd(kind: 'build' | 'deploy', status: string): 'running' | 'ok' | 'failed' {
  const over = kind === 'build' ? !building.has(status) : terminalRevisionStatuses.has(status);
  if (!over) return 'running';
  return failed.has(status) && !(kind === 'build' && status === 'DEPLOY_FAILED') ? 'failed' : 'ok';
}

/** Waits between polls of a follow: doubling while nothing new comes, back to the start when it does. */
export const followBackoff = { firstMs: 500, maxMs: 8_000 } as const;

async function printLogs(
  client: ServiceClient,
  target: LogTarget,
  flags: Flags,
  signal: AbortSignal,
): Promise<number> {
  const filters: Omit<LogsRequest, 'order' | 'limit' | 'offset'> = {
    ...(flags.level ? { level: flags.level } : {}),
    ...(flags.query ? { query: flags.query } : {}),
    ...(flags.since !== undefined ? { start_time: Math.max(0, Math.floor(Date.now() - flags.since)) } : {}),
  };
  const write = writer(flags);
  const notFound = notFoundAs(
    target.revisionId
      ? `revision ${target.revisionId} of deployment ${target.deploymentId}`
      : `deployment ${target.deploymentId}`,
  );
  let offset = 0;
  try {
    if (flags.tail !== undefined) {
      // The newest n, printed oldest first; a follow goes on after everything there is now.
      const limit = Math.min(flags.tail, maxLogsLimit);
      const page = await client.readLogs(target, { ...filters, order: 'desc', limit }, { signal });
      for (const e of [...page.logs].reverse()) write(e);
      if (flags.follow) offset = await countAll(client, target, filters, signal);
    } else {
      for await (const e of client.iterateLogs(target, { ...filters, order: 'asc' }, { signal })) {
        write(e);
        offset++;
      }
    }
  } catch (err) {
    notFound(err);
  }
  if (!flags.follow) return exitCodes.printed;
  return follow(client, target, filters, offset, write, signal);
}

async function countAll(
  client: ServiceClient,
  target: LogTarget,
  filters: Omit<LogsRequest, 'order' | 'limit' | 'offset'>,
  signal: AbortSignal,
): Promise<number> {
  let n = 0;
  for await (const _ of client.iterateLogs(target, { ...filters, order: 'asc' }, { signal })) n++;
  return n;
}

async function follow(
  client: ServiceClient,
  target: LogTarget,
  filters: Omit<LogsRequest, 'order' | 'limit' | 'offset'>,
  from: number,
  write: (e: LogEntry) => void,
  signal: AbortSignal,
): Promise<number> {
  let offset = from;
  let waitMs: number = followBackoff.firstMs;
  const more = async () => {
    let n = 0;
    for await (const e of client.iterateLogs(target, { ...filters, order: 'asc' }, { signal, offset })) {
      write(e);
      n++;
    }
    offset += n;
    return n;
  };
  for (;;) {
    let end: 'running' | 'ok' | 'failed' = 'running';
    try {
      const status = target.revisionId
        ? await revisionStatus(client, target.deploymentId, target.revisionId, signal)
        : undefined;
      end = status === undefined ? 'running' : phaseEnd(target.kind, status);
      const n = await more();
      if (end !== 'running') return end === 'failed' ? exitCodes.phaseFailed : exitCodes.printed;
      waitMs = n > 0 ? followBackoff.firstMs : Math.min(waitMs * 2, followBackoff.maxMs);
    } catch (err) {
      // A service that is busy for a moment does not end a follow; anything else does.
      if (!(err instanceof ServiceError && err.retryable) || signal.aborted) throw err;
      waitMs = Math.min(waitMs * 2, followBackoff.maxMs);
    }
    await sleep(waitMs, undefined, { signal });
  }
}

async function revisionStatus(
  client: ServiceClient,
  deploymentId: string,
  revisionId: string,
  signal: AbortSignal,
): Promise<string> {
  for await (const r of client.iterateRevisions(deploymentId, {}, { signal, onRejected: () => {} }))
    if (r.id === revisionId) return r.status;
  throw new Error(`revision ${revisionId} not found in deployment ${deploymentId}`);
}

/** One entry as printed: the message (text), or the entry as JSON (one line each) or YAML documents. */
function writer(flags: { output: OutputFormat; timestamps?: boolean | undefined }): (e: LogEntry) => void {
  return (e) => {
    const text =
      flags.output === 'json'
        ? `${JSON.stringify(e)}\n`
        : flags.output === 'yaml'
          ? `---\n${stringify(e)}`
          : `${flags.timestamps ? `${new Date(e.timestamp).toISOString()} ` : ''}${e.message}\n`;
    process.stdout.write(text);
  };
}
