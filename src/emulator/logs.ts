// Build and deploy logs of a revision as a function of time, like its status (lifecycle.ts): each phase
// has a fixed script whose lines are spread over the step in which the revision is BUILDING or DEPLOYING,
// so the same revision at the same moment always shows the same lines. The failure markers write a
// realistic failing step. Secrets appear by name only, never by value.
import type { LogEntry, LogLevel, LogsRequest, RevisionStatus } from '../service/wire.ts';
import { timelineOf } from './lifecycle.ts';
import type { StoredDeployment, StoredRevision } from './store.ts';

export type LogKind = 'build' | 'deploy';

interface Line {
  level: LogLevel;
  message: string;
}

const info = (message: string): Line => ({ level: 'info', message });
const warning = (message: string): Line => ({ level: 'warning', message });
const error = (message: string): Line => ({ level: 'error', message });

/** The failing build step: a dependency that does not exist. */
export const failingBuildStep = 'pip install -r requirements.txt';
export const failingRequirement = 'foo==9.9';
/** The command that starts the server, the step that crash-loops under `fail-deploy`. */
export const startCommand = 'langgraph-api serve --port 8000';
/** How often a crash-looping start is tried before the service gives up. */
const crashLoopAttempts = 3;

/** Where the revision's code comes from, as a build log names it. */
function sourceOf(d: StoredDeployment, r: StoredRevision): string {
  const c = r.config;
  if (r.source === 'codehost')
    return `${d.sourceConfig.repo_url ?? 'repository'}@${r.commitSha ?? c.repo_ref}`;
  return c.image_uri ?? c.source_tarball_path ?? c.graph_config_path ?? r.source;
}

/** What the start loads: the graph config, or the image that holds it. */
const graphOf = (r: StoredRevision): string =>
  r.config.graph_config_path ?? r.config.image_uri ?? r.config.source_tarball_path ?? 'langgraph.json';

function buildScript(d: StoredDeployment, r: StoredRevision, status: RevisionStatus): Line[] {
  const head = [
    info(`Build started for revision ${r.id}`),
    info(`Fetching source ${sourceOf(d, r)}`),
    info('Step 1/5 : FROM langchain/langgraph-api:3.12'),
    info('Step 2/5 : ADD . /deps/agent'),
    info(`Step 3/5 : RUN ${failingBuildStep}`),
    info('Collecting langgraph>=0.2'),
    info('Collecting langchain-core>=0.3'),
  ];
  if (status === 'BUILD_FAILED')
    return [
      ...head,
      info(`Collecting ${failingRequirement}`),
      error(
        `ERROR: Could not find a version that satisfies the requirement ${failingRequirement} (from versions: none)`,
      ),
      error(`ERROR: No matching distribution found for ${failingRequirement}`),
      error(`The command '/bin/sh -c ${failingBuildStep}' returned a non-zero code: 1`),
      error('Build failed: exit code 1'),
    ];
  return [
    ...head,
    info('Successfully installed langchain-core-0.3.28 langgraph-0.2.60'),
    info('Step 4/5 : RUN langgraph validate --config langgraph.json'),
    info('Step 5/5 : WORKDIR /deps/agent'),
    info(`Successfully built ${r.id.slice(0, 12)}`),
    info(`Pushing image registry.internal/${d.name}:${r.id.slice(0, 8)}`),
    info('Build finished'),
  ];
}

function deployScript(d: StoredDeployment, r: StoredRevision, status: RevisionStatus): Line[] {
  const names = [...d.secrets.map((s) => s.name), ...(d.secretReferences ?? []).map((s) => s.name)];
  const head = [
    info(`Deploy started for revision ${r.id}`),
    info(`Pulling image registry.internal/${d.name}:${r.id.slice(0, 8)}`),
    info(names.length > 0 ? `Secrets set: ${names.join(', ')} (values not shown)` : 'No secrets set'),
  ];
  if (status === 'DEPLOY_FAILED') {
    const attempt = (n: number): Line[] => [
      info(`Running: ${startCommand}`),
      info(`Loading graphs from ${graphOf(r)}`),
      error('Traceback (most recent call last):'),
      error('  File "/api/langgraph_api/graph.py", line 412, in collect_graphs_from_env'),
      error(`ImportError: cannot load graph 'agent' from ${graphOf(r)}: No module named 'agent_tools'`),
      error('Container exited with code 1'),
      warning(`Back-off restarting failed container (restart ${n})`),
    ];
    const attempts = Array.from({ length: crashLoopAttempts }, (_, i) => attempt(i + 1)).flat();
    return [...head, ...attempts, error('Deploy failed: the container is crash-looping (CrashLoopBackOff)')];
  }
  const tail =
    status === 'SKIPPED'
      ? [warning('Deploy skipped: a newer revision took its place')]
      : [
          info(`Running: ${startCommand}`),
          info('Server listening on 0.0.0.0:8000'),
          info('Health check passed'),
        ];
  return [...head, ...tail, ...(status === 'DEPLOYED' ? [info(`Revision ${r.id} is serving`)] : [])];
}

const phaseStatus: Record<LogKind, RevisionStatus> = { build: 'BUILDING', deploy: 'DEPLOYING' };

/**
 * The entries of one phase of a revision that exist at `now`, oldest first: the script's lines spread
 * over the phase's step (all at its start when stepMs is 0), cut where a newer revision stopped it.
 */
export function revisionLogs(
  d: StoredDeployment,
  r: StoredRevision,
  kind: LogKind,
  stepMs: number,
  now: number,
): LogEntry[] {
  const timeline = timelineOf(r);
  const step = timeline.indexOf(phaseStatus[kind]);
  if (step === -1) return [];
  const start = r.startedAt + step * stepMs;
  const outcome = timeline.at(-1)!;
  const lines = kind === 'build' ? buildScript(d, r, outcome) : deployScript(d, r, outcome);
  const until = Math.min(now, r.stopped?.at ?? Number.POSITIVE_INFINITY);
  const entries: LogEntry[] = [];
  lines.forEach((line, i) => {
    // The last line is written as the phase ends, when the status moves on.
    const timestamp = start + Math.floor(((i + 1) * stepMs) / lines.length);
    if (timestamp <= until) entries.push({ id: `${r.id}/${kind}/${i}`, timestamp, ...line });
  });
  const cut = r.stopped && r.stopped.at >= start && entries.length < lines.length;
  if (cut && r.stopped)
    entries.push({
      id: `${r.id}/${kind}/stopped`,
      timestamp: r.stopped.at,
      level: 'warning',
      message: `${kind === 'build' ? 'Build' : 'Deploy'} stopped: the revision is ${r.stopped.status}`,
    });
  return entries;
}

/** The deploy logs of every revision of the deployment, by time (a revision's own order kept). */
export function deploymentLogs(d: StoredDeployment, stepMs: number, now: number): LogEntry[] {
  return d.revisions
    .flatMap((r) => revisionLogs(d, r, 'deploy', stepMs, now))
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.timestamp - b.e.timestamp || a.i - b.i)
    .map(({ e }) => e);
}

/**
 * One page: the filters (level exact, case-insensitive; query a case-insensitive substring; times
 * inclusive), then the order, then offset and limit. `next_offset` is where the next page starts, null
 * when this one reached the end.
 */
export function logsPage(
  entries: readonly LogEntry[],
  req: LogsRequest,
): { logs: LogEntry[]; next_offset: number | null } {
  const level = req.level?.toLowerCase();
  const query = req.query?.toLowerCase();
  const matching = entries.filter(
    (e) =>
      (level === undefined || e.level.toLowerCase() === level) &&
      (query === undefined || e.message.toLowerCase().includes(query)) &&
      (req.start_time === undefined || e.timestamp >= req.start_time) &&
      (req.end_time === undefined || e.timestamp <= req.end_time),
  );
  const ordered = req.order === 'desc' ? [...matching].reverse() : matching;
  const offset = req.offset ?? 0;
  const logs = ordered.slice(offset, offset + req.limit);
  const end = offset + logs.length;
  return { logs, next_offset: end < ordered.length ? end : null };
}
