// The Deployment kind for the shared reconciler: inputs from Secrets, a Listener and the code hosts; the
// batched observer for what the service holds; the planner; and the status a service deployment shows.
import { annotations } from '../../api/constants.ts';
import type { DeploymentResource, DeploymentStatus } from '../../api/deployment.ts';
import { objectKey } from '../../runtime/kube-objects.ts';
import type { ListedPage } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import {
  type CreateDeploymentRequest,
  type Deployment,
  type PatchDeploymentRequest,
  type Revision,
  terminalRevisionStatuses,
} from '../../service/wire.ts';
import type { Problem } from '../managed/conditions.ts';
import { serviceTrouble } from '../managed/errors.ts';
import type { ManagedKind, ObserveContext, Outcome, Via } from '../managed/kind.ts';
import { isObserved } from '../managed/plan.ts';
import { previousObserved } from '../managed/status.ts';
import { DEPLOYMENTS } from '../resources.ts';
import type { WorkspaceConnection } from '../workspace/connection.ts';
import { computeConditions, type Observed, revisionPhase } from './conditions.ts';
import { deploymentName, desiredDeployment } from './desired.ts';
import { keptFields } from './diff.ts';
import { FailureLogs } from './failure-logs.ts';
import { type InputSources, resolveInputs } from './inputs.ts';
import type { DeploymentObserver } from './observer.ts';
import {
  type DeploymentInputs,
  type DeploymentObservation,
  observeDeployment,
  planDeployment,
} from './planner.ts';
import { secretsDigest } from './secrets-digest.ts';
import { observedStatus, revisionSummaries } from './status.ts';

export interface DeploymentKindDeps {
  /** The batched observer of one workspace's deployments. */
  observer(workspace: WorkspaceConnection): DeploymentObserver;
  /** Where a resource of one workspace finds what it refers to. */
  inputs(workspace: WorkspaceConnection): InputSources;
  /** The resources of a workspace bound to a service deployment id (an index of the informer). */
  owners: (workspace: WorkspaceConnection, deploymentId: string) => DeploymentResource[];
  /** How old a cached observation may be for a resource with nothing in flight. */
  resyncMs: number;
}

export type DeploymentKind = ManagedKind<
  DeploymentResource,
  DeploymentInputs,
  DeploymentObservation,
  Deployment,
  CreateDeploymentRequest,
  PatchDeploymentRequest
>;

/** The id this resource is bound to: the annotation survives a lost status. */
export const knownId = (cr: DeploymentResource): string | undefined =>
  cr.metadata.annotations?.[annotations.deploymentId] || cr.status?.deploymentId || undefined;

export function deploymentKind(d: DeploymentKindDeps): DeploymentKind {
  const failureLogs = new FailureLogs();
  const findByName = async (name: string, { service, signal }: Via) =>
    (await service.findDeploymentByName(name, { signal })) ?? null;
  /** Another resource that manages deployment `id` (one that only observes it holds nothing). */
  const rivalOf = (cr: DeploymentResource, id: string, via: Via) => {
    const rival = d
      .owners(via.workspace, id)
      .find((other) => other.metadata.uid !== cr.metadata.uid && !isObserved(other));
    return rival ? { rival: `${rival.metadata.namespace}/${rival.metadata.name}` } : {};
  };
  /** By name: the deployment holding it, and whether another resource already manages that. */
  const lookUp = async (cr: DeploymentResource, via: Via) => {
    const byName = await findByName(deploymentName(cr), via);
    if (byName) d.observer(via.workspace).record(byName);
    return { byName, ...(byName ? rivalOf(cr, byName.id, via) : {}) };
  };

  return {
    ref: DEPLOYMENTS,
    logKey: 'deployment',
    idAnnotation: annotations.deploymentId,
    guardedCreate: { endpoint: 'POST /v2/deployments' },
    // A refused request is not sent again until the spec or its inputs change.
    refusalMemoMs: Number.POSITIVE_INFINITY,
    knownId,
    deletes: (cr) => cr.spec.deletionPolicy === 'Delete',

    async resolve(cr, via) {
      const resolved = await resolveInputs(cr, d.inputs(via.workspace));
      if ('problem' in resolved) return resolved;
      return {
        inputs: {
          desired: desiredDeployment(cr, resolved.inputs),
          digest: secretsDigest(cr.metadata.uid!, resolved.inputs.secrets),
        },
      };
    },

    async observe(cr, context) {
      const observation: DeploymentObservation = { pending: context.pending, bindingKnown: true };
      const id = context.id;
      if (id) {
        const bound = await d.observer(context.workspace).get(id, context.polling ? 0 : d.resyncMs);
        if (bound) return { ...observation, bound, ...rivalOf(cr, bound.id, context) };
        observation.gone = id;
      }
      // A create whose outcome is unknown may have made it: look by name before creating again. An
      // observed resource never creates: the name is the only way to its deployment.
      return context.pending || context.observing
        ? { ...observation, ...(await lookUp(cr, context)) }
        : observation;
    },

    async observeNameTaken(cr, observed, detail, via) {
      return { ...observed, nameTaken: detail, ...(await lookUp(cr, via)) };
    },

    plan: planDeployment,
    planObserved: observeDeployment,

    async create(_cr, request, { workspace, service, signal }) {
      const created = await service.createDeployment(request, { signal });
      d.observer(workspace).record(created);
      return created;
    },

    async update(target, patch, { workspace, service, signal }) {
      const updated = await service.patchDeployment(target.id, patch, { signal });
      d.observer(workspace).record(updated);
      return updated;
    },

    async remove(cr, context: ObserveContext<Deployment>) {
      const id =
        context.id ?? (context.pending ? (await findByName(deploymentName(cr), context))?.id : undefined);
      if (!id) return 'gone';
      const observer = d.observer(context.workspace);
      // The hosted service deletes asynchronously: a deployment it is deleting is waited for, not deleted
      // again, so a restart mid-deletion picks up where it was.
      const current = await observer.get(id, 0);
      if (current && isBeingDeleted(current)) return 'deleting';
      if (current) {
        try {
          await context.service.deleteDeployment(id, { signal: context.signal });
        } catch (err) {
          if (!(err instanceof ServiceError && err.isNotFound)) throw err;
        }
      }
      const after = current ? await observer.get(id, 0) : null;
      if (after) return 'deleting';
      observer.forget(id);
      return 'gone';
    },

    idOf: (x) => x.id,
    describe: (x) => `service deployment ${x.name} (${x.id})`,

    async status(cr, outcome, via) {
      const deployment = outcome.target;
      if (!deployment || !via)
        return {
          // Asked and not shown: what status says of a deployment no longer applies.
          observed: outcome.looked ? {} : previousObserved(cr.status),
          conditions: computeConditions(undefined, outcome.problem),
        };
      const listed = await revisionsIfMoving(via, deployment, cr.status);
      const revisions = listed?.resources;
      const observed: Observed = { deployment };
      const kept = outcome.inputs ? keptFields(outcome.inputs.desired, deployment) : [];
      if (kept.length > 0) observed.kept = kept;
      const latest = revisions?.find((r) => r.id === deployment.latest_revision_id);
      if (latest) observed.latestRevision = { id: latest.id, status: latest.status };
      else if (
        cr.status?.latestRevision?.id === deployment.latest_revision_id &&
        deployment.latest_revision_id !== deployment.active_revision_id
      )
        observed.latestRevision = cr.status.latestRevision;
      const failure = await failureOf(cr, deployment, observed.latestRevision, outcome, via);
      if (failure) observed.failure = failure;
      const summaries = revisionSummaries(deployment, revisions, cr.status?.revisions);
      const fields: Partial<DeploymentStatus> = observedStatus(deployment, summaries);
      const digest = sentDigest(cr, outcome);
      if (digest) fields.secretsDigest = digest;
      return { observed: fields, conditions: computeConditions(observed, problemOf(outcome, listed)) };
    },

    forget: (key) => failureLogs.forget(key),
    forgetExternal: (id, via) => d.observer(via.workspace).forget(id),
  };

  /** What the latest revision's log says of its failure, read once per failure (failure-logs.ts). */
  async function failureOf(
    cr: DeploymentResource,
    deployment: Deployment,
    latest: Observed['latestRevision'],
    outcome: Outcome<Deployment, DeploymentInputs>,
    { service, signal }: Via,
  ): Promise<string | undefined> {
    const key = objectKey(cr);
    const phase = latest && revisionPhase(latest.status);
    if (!latest || phase?.phase !== 'failed') {
      failureLogs.forget(key);
      return undefined;
    }
    const stalled = cr.status?.conditions?.find((c) => c.type === 'Stalled');
    const told = stalled?.status === 'True' && stalled.reason === phase.reason ? stalled.message : undefined;
    // The resource's own secrets: what it sends, and what the service holds.
    const secrets = [...(outcome.inputs?.desired.create.secrets ?? []), ...deployment.secrets].map(
      (s) => s.value,
    );
    return failureLogs.messageFor(
      key,
      { deploymentId: deployment.id, revision: latest },
      told,
      secrets,
      (target, body, options) => service.readLogs(target, body, options),
      signal,
    );
  }
}

/** Deployment statuses of a deletion the service has accepted and not finished (hosted service). */
const deletionStatuses: ReadonlySet<string> = new Set(['AWAITING_DELETE', 'AWAITING_FINAL_DELETE']);
const isBeingDeleted = (x: Deployment) => deletionStatuses.has(x.status);

/** The digest of the secrets the service holds: the current one once they were sent and accepted. */
function sentDigest(
  cr: DeploymentResource,
  outcome: Outcome<Deployment, DeploymentInputs>,
): string | undefined {
  const sent = outcome.sent ?? [];
  const accepted = (sent.includes('create') || sent.includes('secrets')) && !outcome.problem;
  return accepted ? outcome.inputs?.digest : (cr.status?.secretsDigest ?? outcome.inputs?.digest);
}

/** Reads the revision list only while the latest revision is not settled: the cheap path has none. */
async function revisionsIfMoving(
  { service, signal }: Via,
  d: Deployment,
  status: DeploymentStatus | undefined,
): Promise<ListedPage<Revision> | undefined> {
  if (!d.latest_revision_id || d.latest_revision_id === d.active_revision_id) return undefined;
  const known = status?.latestRevision;
  if (known?.id === d.latest_revision_id && terminalRevisionStatuses.has(known.status)) return undefined;
  return service.listRevisions(d.id, { limit: 100 }, { signal });
}

/**
 * Why the spec may not be held, with an unreadable latest revision as trouble: its item broke the
 * contract (or one left out may be it), so its state is unknown and the message names the item's path.
 */
function problemOf(
  outcome: Outcome<Deployment, DeploymentInputs>,
  listed: ListedPage<Revision> | undefined,
): Problem | undefined {
  if (outcome.problem) return outcome.problem;
  const latest = outcome.target?.latest_revision_id;
  const found = listed?.resources.some((r) => r.id === latest);
  const unreadable = found ? undefined : listed?.rejected.find((r) => r.id === undefined || r.id === latest);
  return unreadable && serviceTrouble(unreadable.error);
}
