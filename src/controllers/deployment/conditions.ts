// Ready / Synced / Reconciling / Stalled of a Deployment from what the reconcile saw (DESIGN.md §2): the
// phase of the service deployment and its latest revision. A status the interface does not list is in
// progress, never a failure: the service knows what it means, the operator only waits and shows it.
import type { ConditionReason } from '../../api/constants.ts';
import {
  type Deployment,
  deploymentStatuses,
  isKnown,
  type Reported,
  type RevisionStatus,
  revisionStatuses,
} from '../../service/wire.ts';
import { type ConditionSet, type ConditionValue, condition, type Problem } from '../managed/conditions.ts';

export interface Observed {
  deployment: Deployment;
  latestRevision?: { id: string; status: Reported<RevisionStatus> };
  /** Fields the service keeps though the spec does not set them (keptFields). */
  kept?: string[];
  /** Why the latest revision failed, in its log's words (failure-logs.ts); absent: its status alone. */
  failure?: string;
}

/** Where a latest revision stands: deployed (or nothing to deploy), failed for good, or under way. */
export type RevisionPhase = { phase: 'settled' } | { phase: 'failed' | 'moving'; reason: ConditionReason };

const revisionReason: Record<Exclude<RevisionStatus, 'DEPLOYED' | 'SKIPPED'>, ConditionReason> = {
  CREATING: 'Creating',
  QUEUED: 'Queued',
  AWAITING_BUILD: 'AwaitingBuild',
  BUILDING: 'Building',
  AWAITING_DEPLOY: 'AwaitingDeploy',
  DEPLOYING: 'Deploying',
  CREATE_FAILED: 'CreateFailed',
  BUILD_FAILED: 'BuildFailed',
  DEPLOY_FAILED: 'DeployFailed',
  // The hosted service may move an interrupted or unknown revision on: waited for, not a failure.
  INTERRUPTED: 'Interrupted',
  UNKNOWN: 'Unknown',
};
const failed: ReadonlySet<string> = new Set<RevisionStatus>([
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
]);

/**
 * DEPLOYED and SKIPPED are settled: the hosted service skips a revision that needs no deploy, and the
 * active revision (maybe an earlier one) keeps serving. A status the interface does not list is under way.
 */
export function revisionPhase(status: Reported<RevisionStatus>): RevisionPhase {
  if (!isKnown(revisionStatuses, status)) return { phase: 'moving', reason: 'UnknownServiceStatus' };
  if (status === 'DEPLOYED' || status === 'SKIPPED') return { phase: 'settled' };
  return { phase: failed.has(status) ? 'failed' : 'moving', reason: revisionReason[status] };
}

const c = condition;

/** Ready, and whether the service side is still moving, from one observation. */
function readiness(observed: Observed): { ready: ConditionValue; moving: boolean; failedRevision: boolean } {
  const d = observed.deployment;
  const rev = observed.latestRevision;
  const moving = (ready: ConditionValue) => ({ ready, moving: true, failedRevision: false });
  if (!d.latest_revision_id) return moving(c('False', 'Creating', 'the deployment has no revision yet'));
  const phase = rev && revisionPhase(rev.status);
  if (rev && phase && phase.phase !== 'settled') {
    const unknown = phase.reason === 'UnknownServiceStatus' ? ', a status the operator does not know' : '';
    const told = phase.phase === 'failed' ? observed.failure : undefined;
    return {
      ready: c('False', phase.reason, told ?? `revision ${rev.id} is ${rev.status}${unknown}`),
      moving: phase.phase === 'moving',
      failedRevision: phase.phase === 'failed',
    };
  }
  const skipped = rev?.status === 'SKIPPED';
  if (!skipped && d.active_revision_id !== d.latest_revision_id)
    return moving(c('False', 'Deploying', `revision ${d.latest_revision_id} is not active yet`));
  if (d.status === 'AWAITING_DATABASE')
    return moving(c('False', 'AwaitingDatabase', 'the service is provisioning the database'));
  if (!isKnown(deploymentStatuses, d.status))
    return moving(
      c(
        'False',
        'UnknownServiceStatus',
        `the service reports status ${d.status}, which the operator does not know`,
      ),
    );
  if (d.status !== 'READY')
    return {
      ready: c('False', 'Unknown', `the service reports status ${d.status}`),
      moving: d.status !== 'UNUSED',
      failedRevision: false,
    };
  const deployed = skipped
    ? `revision ${d.latest_revision_id} was skipped, which the service counts as done; ${
        d.active_revision_id ? `revision ${d.active_revision_id} is active` : 'the service reports READY'
      }`
    : `revision ${d.latest_revision_id} is deployed and active`;
  return { ready: c('True', 'Ready', deployed), moving: false, failedRevision: false };
}

/**
 * The four conditions. `observed` is absent before a deployment exists; `problem` says why the
 * spec is not held (a missing input, a service refusal, a conflict).
 */
export function computeConditions(
  observed: Observed | undefined,
  problem: Problem | undefined,
): ConditionSet {
  const kept = observed?.kept?.length
    ? `; the service keeps ${observed.kept.join(', ')} once set, though the spec no longer sets it`
    : '';
  const synced = problem
    ? c('False', problem.reason, problem.message)
    : c('True', 'Synced', `the service holds the spec${kept}`);
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
