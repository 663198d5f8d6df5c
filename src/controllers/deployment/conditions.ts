// Ready / Synced / Reconciling / Stalled of a Deployment from what the reconcile saw (DESIGN.md §2): the
// phase of the service deployment and its latest revision.
import type { ConditionReason } from '../../api/constants.ts';
import {
  type Deployment,
  isKnown,
  type Reported,
  type RevisionStatus,
  revisionStatuses,
  terminalRevisionStatuses,
} from '../../service/wire.ts';
import { type ConditionSet, type ConditionValue, condition, type Problem } from '../managed/conditions.ts';

export interface Observed {
  deployment: Deployment;
  latestRevision?: { id: string; status: Reported<RevisionStatus> };
}

const revisionReason: Record<RevisionStatus, ConditionReason> = {
  CREATING: 'Creating',
  QUEUED: 'Queued',
  AWAITING_BUILD: 'AwaitingBuild',
  BUILDING: 'Building',
  AWAITING_DEPLOY: 'AwaitingDeploy',
  DEPLOYING: 'Deploying',
  CREATE_FAILED: 'CreateFailed',
  BUILD_FAILED: 'BuildFailed',
  DEPLOY_FAILED: 'DeployFailed',
  DEPLOYED: 'Ready',
  SKIPPED: 'Skipped',
  INTERRUPTED: 'Interrupted',
  UNKNOWN: 'Unknown',
};
const failed: ReadonlySet<string> = new Set(['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED']);

const c = condition;

/** Ready, and whether the service side is still moving, from one observation. */
function readiness(observed: Observed): { ready: ConditionValue; moving: boolean; failedRevision: boolean } {
  const d = observed.deployment;
  const rev = observed.latestRevision;
  if (!d.latest_revision_id)
    return {
      ready: c('False', 'Creating', 'the deployment has no revision yet'),
      moving: true,
      failedRevision: false,
    };
  if (rev && rev.status !== 'DEPLOYED') {
    const terminal = terminalRevisionStatuses.has(rev.status);
    return {
      ready: c(
        'False',
        isKnown(revisionStatuses, rev.status) ? revisionReason[rev.status] : 'Unknown',
        `revision ${rev.id} is ${rev.status}`,
      ),
      moving: !terminal,
      failedRevision: failed.has(rev.status),
    };
  }
  if (d.active_revision_id !== d.latest_revision_id)
    return {
      ready: c('False', 'Deploying', `revision ${d.latest_revision_id} is not active yet`),
      moving: true,
      failedRevision: false,
    };
  if (d.status === 'AWAITING_DATABASE')
    return {
      ready: c('False', 'AwaitingDatabase', 'the service is provisioning the database'),
      moving: true,
      failedRevision: false,
    };
  if (d.status !== 'READY')
    return {
      ready: c('False', 'Unknown', `the service reports status ${d.status}`),
      moving: d.status !== 'UNUSED',
      failedRevision: false,
    };
  return {
    ready: c('True', 'Ready', `revision ${d.latest_revision_id} is deployed and active`),
    moving: false,
    failedRevision: false,
  };
}

/**
 * The four conditions. `observed` is absent before a deployment exists; `problem` says why the
 * spec is not held (a missing input, a service refusal, a conflict).
 */
export function computeConditions(
  observed: Observed | undefined,
  problem: Problem | undefined,
): ConditionSet {
  const synced = problem
    ? c('False', problem.reason, problem.message)
    : c('True', 'Synced', 'the service holds the spec');
  if (!observed) {
    const ready = problem
      ? c('False', problem.reason, problem.message)
      : c('False', 'Creating', 'creating the deployment');
    const stalled = problem?.stalled ?? false;
    return {
      Ready: ready,
      Synced: synced,
      Reconciling: stalled
        ? c('False', 'Idle', 'waiting for a spec change')
        : c('True', 'Progressing', ready.message),
      Stalled: stalled
        ? c('True', problem!.reason, problem!.message)
        : c('False', 'Progressing', 'no failure'),
    };
  }
  const r = readiness(observed);
  const ready = problem && r.ready.status === 'True' ? c('False', problem.reason, problem.message) : r.ready;
  // A failed revision of the spec the service holds will not recover by itself.
  const stalledBy = problem?.stalled
    ? problem
    : r.failedRevision && !problem
      ? { reason: r.ready.reason, message: r.ready.message }
      : undefined;
  const moving = !stalledBy && (r.moving || (problem !== undefined && !problem.stalled));
  return {
    Ready: ready,
    Synced: synced,
    Reconciling: moving
      ? c('True', 'Progressing', problem?.message ?? r.ready.message)
      : c('False', 'Idle', stalledBy ? 'waiting for a spec change' : 'nothing in flight'),
    Stalled: stalledBy
      ? c('True', stalledBy.reason, stalledBy.message)
      : c('False', 'Progressing', 'no failure'),
  };
}
