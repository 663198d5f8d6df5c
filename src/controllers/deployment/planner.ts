// What the operator does for a Deployment resource, decided from the resource, its resolved inputs and
// what the service was seen to hold. A pure function: the reconciler carries its plan out, and
// `agent-deploy diff` shows it.
import { camelCase } from '../../api/case.ts';
import { annotations } from '../../api/constants.ts';
import type { DeploymentResource } from '../../api/deployment.ts';
import type { Deployment, PatchDeploymentRequest } from '../../service/wire.ts';
import { isObserved, isPaused, type ObservePlan, type Plan, wasObserved } from '../managed/plan.ts';
import { type DesiredDeployment, deploymentName } from './desired.ts';
import { diffDeployment } from './diff.ts';

export interface DeploymentInputs {
  desired: DesiredDeployment;
  /** The digest of the secrets' values, salted per resource: status keeps it, never the values. */
  digest: string;
}

export interface DeploymentObservation {
  /** The service deployment the resource is bound to. */
  bound?: Deployment;
  /** The id the resource was bound to, which the service no longer has. */
  gone?: string;
  /** The deployment holding the resource's name: null when none does, absent when nobody looked. */
  byName?: Deployment | null;
  /** Another resource that manages byName (or bound: namespace/name); one that only observes it is none. */
  rival?: string;
  /** The service answered a create with 409; its words. */
  nameTaken?: string;
  /** A create-pending marker of a create whose outcome is unknown is on the resource. */
  pending: boolean;
  /**
   * Whether anyone could tell which service deployment the resource is bound to. Not so for `diff`
   * without cluster access: the binding lives in the resource's annotations in the cluster.
   */
  bindingKnown: boolean;
}

export type DeploymentPlan = Plan<DeploymentInputs['desired']['create'], PatchDeploymentRequest, Deployment>;

export const pausedReason = `paused (${annotations.paused}: "true")`;

export const observedReason =
  'observed only (spec.managementPolicy: Observe): the operator changes nothing on the service';

/** Why a resource that observed its deployment until now takes it over. */
const wasObservedWhy = 'spec.managementPolicy: Manage (it was Observe)';

/**
 * A resource with spec.managementPolicy Observe: the deployment it is bound to, else the one holding its
 * name; none is NotFound, looked up again at each resync (not stalled: someone may create it).
 */
export function observeDeployment(
  cr: DeploymentResource,
  observed: DeploymentObservation,
): ObservePlan<Deployment> {
  const found = observed.bound ?? observed.byName;
  if (found) return { action: 'observe', target: found };
  const gone = observed.gone ? ` (${observed.gone}, observed until now, no longer exists)` : '';
  return {
    action: 'cannot',
    problem: {
      reason: 'NotFound',
      message:
        `the service has no deployment named ${deploymentName(cr)}${gone}; with spec.managementPolicy: ` +
        'Observe the operator does not create it (set Manage to have it created)',
      stalled: false,
    },
  };
}

export function planDeployment(
  cr: DeploymentResource,
  inputs: DeploymentInputs,
  observed: DeploymentObservation,
): DeploymentPlan & { reason?: string; assumption?: string } {
  if (isPaused(cr)) return { action: 'nothing', reason: pausedReason };
  if (isObserved(cr)) return observeDeployment(cr, observed);
  const { bound, rival } = observed;
  if (bound) {
    // Observed until now and not bound by annotation: take it over. The annotation, once written, ends that.
    const adopted = cr.metadata.annotations?.[annotations.deploymentId] === bound.id;
    if (adopted || !wasObserved(cr)) return changes(cr, inputs, bound);
    return rival ? conflict(bound, rival) : { ...changes(cr, inputs, bound), adopt: { why: wasObservedWhy } };
  }

  const name = deploymentName(cr);
  const found = observed.byName;
  if (found) {
    if (rival) return conflict(found, rival);
    const why = observed.pending
      ? 'an earlier create of this resource'
      : cr.spec.adopt
        ? 'spec.adopt'
        : wasObserved(cr)
          ? wasObservedWhy
          : undefined;
    if (why) return { ...changes(cr, inputs, found), adopt: { why } };
    if (!observed.bindingKnown)
      return {
        ...changes(cr, inputs, found),
        assumption: `without cluster access there is no telling whether this resource already holds service deployment ${found.id} (named ${name}); compared as if it does`,
      };
    return {
      action: 'cannot',
      problem: {
        reason: 'AlreadyExists',
        message: `a service deployment named ${name} already exists (${found.id}); set spec.adopt: true to take it over`,
        stalled: true,
      },
    };
  }
  if (observed.nameTaken !== undefined)
    return {
      action: 'cannot',
      problem: {
        reason: 'AlreadyExists',
        message: `the service refused the name ${name}: ${observed.nameTaken}`,
        stalled: true,
      },
    };
  return {
    action: 'create',
    request: inputs.desired.create,
    ...(observed.gone ? { replaces: observed.gone } : {}),
  };
}

/** Another resource manages the deployment this one would take over. */
const conflict = (target: Deployment, rival: string): DeploymentPlan => ({
  action: 'cannot',
  problem: {
    reason: 'Conflict',
    message: `service deployment ${target.id} belongs to ${rival}`,
    stalled: true,
  },
});

/** Patch, nothing, or cannot, against the deployment the resource holds (or is about to). */
function changes(
  cr: DeploymentResource,
  inputs: DeploymentInputs,
  target: Deployment,
): Exclude<DeploymentPlan, { action: 'create' | 'observe' }> {
  const diff = diffDeployment(inputs.desired, target, {
    digest: inputs.digest,
    ...(cr.status?.secretsDigest ? { lastSentDigest: cr.status.secretsDigest } : {}),
  });
  if (diff.immutable.length > 0)
    return {
      action: 'cannot',
      target,
      problem: {
        reason: 'InvalidSpec',
        message: immutableMessage(writtenFields(cr, diff.immutable)),
        stalled: true,
      },
    };
  if (!diff.patch) return { action: 'nothing', target };
  // The spec's names for the wire's fields, for events and `diff`.
  const fields = Object.keys(diff.patch).map(camelCase);
  return { action: 'patch', target, patch: diff.patch, fields };
}

/** The spec fields as the user wrote them: spec.repository is what resolves to sourceConfig.integrationId and repoUrl. */
function writtenFields(cr: DeploymentResource, fields: string[]): string[] {
  if (!cr.spec.repository) return fields;
  const fromRepository = ['sourceConfig.integrationId', 'sourceConfig.repoUrl'];
  const resolved = fields.filter((f) => fromRepository.includes(f));
  if (resolved.length === 0) return fields;
  return [`repository (its ${resolved.join(' and ')})`, ...fields.filter((f) => !resolved.includes(f))];
}

/** What differs, that it cannot change, and the two ways to get it anyway. */
function immutableMessage(fields: string[]): string {
  const one = fields.length === 1;
  return (
    `spec.${fields.join(', spec.')} ${one ? 'differs' : 'differ'} from the service deployment and cannot be ` +
    `changed after creation: to change ${one ? 'it' : 'them'}, delete this resource and create it again ` +
    '(with deletionPolicy Delete the service deployment goes too), or create a new resource with another spec.name'
  );
}
