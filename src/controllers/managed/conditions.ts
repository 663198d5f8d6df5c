// The four kstatus conditions every kind writes (DESIGN.md §2): Ready, Synced, Reconciling, Stalled, so
// `kubectl wait`, Flux and Argo CD read the truth. Pure functions.
import type { ConditionReason, ConditionStatus, ConditionType } from '../../api/constants.ts';
import type { Condition } from '../../api/fields.ts';

export interface ConditionValue {
  status: ConditionStatus;
  reason: ConditionReason;
  message: string;
}
export type ConditionSet = Record<ConditionType, ConditionValue>;

/** Why the spec is not (yet) held by the service. */
export interface Problem {
  reason: ConditionReason;
  message: string;
  /** Nothing will change without a spec change (or an input appearing): no retries. */
  stalled: boolean;
  /** Look again after this long: the cause is not watched (the operator's own RBAC, say). */
  retryAfterMs?: number;
}

export const condition = (
  status: ConditionStatus,
  reason: ConditionReason,
  message: string,
): ConditionValue => ({ status, reason, message });
const c = condition;

/**
 * The conditions of a kind without a revision lifecycle, from one outcome: no problem → Ready; a stalled
 * problem → Stalled (nothing changes without a spec change or a resync); any other problem → still
 * Reconciling.
 */
export function outcomeConditions(problem: Problem | undefined, readyMessage: string): ConditionSet {
  if (!problem)
    return {
      Ready: c('True', 'Ready', readyMessage),
      Synced: c('True', 'Synced', readyMessage),
      Reconciling: c('False', 'Idle', 'nothing in flight'),
      Stalled: c('False', 'Idle', 'no failure'),
    };
  const failed = c('False', problem.reason, problem.message);
  return {
    Ready: failed,
    Synced: failed,
    Reconciling: problem.stalled
      ? c('False', 'Idle', 'waiting for a spec change')
      : c('True', problem.reason, problem.message),
    Stalled: problem.stalled
      ? c('True', problem.reason, problem.message)
      : c('False', 'Progressing', 'no failure'),
  };
}

export const observingReason = 'Observing' satisfies ConditionReason;

/**
 * A resource with spec.managementPolicy Observe: Ready, Reconciling and Stalled mirror the service
 * object as they would for a managed one (so `kubectl wait`, kstatus and Argo CD tell the truth about
 * it); a Synced that is True says that the operator mirrors it and changes nothing. Trouble (a missing
 * object, a service error) keeps its own Synced reason.
 */
export function observedConditions(set: ConditionSet, mirrored: string): ConditionSet {
  if (set.Synced.status !== 'True') return set;
  const message = `observed only (spec.managementPolicy: Observe): mirrors ${mirrored}; the operator changes nothing on the service`;
  return { ...set, Synced: c('True', observingReason, message) };
}

/** The paused annotation: say so, keep Ready as it was. */
export function pausedConditions(previous: Condition[] | undefined, annotation: string): ConditionSet {
  const ready = previous?.find((p) => p.type === 'Ready');
  return {
    Ready: ready
      ? c(ready.status, ready.reason as ConditionReason, ready.message)
      : c('Unknown', 'ReconcilePaused', 'reconciliation is paused'),
    Synced: c('False', 'ReconcilePaused', `reconciliation is paused by the ${annotation} annotation`),
    Reconciling: c('False', 'ReconcilePaused', 'reconciliation is paused'),
    Stalled: c('False', 'ReconcilePaused', 'reconciliation is paused'),
  };
}

/** metav1.Condition list: lastTransitionTime moves only when a condition's status does. */
export function toConditions(
  set: ConditionSet,
  previous: Condition[] | undefined,
  generation: number | undefined,
  now: string,
): Condition[] {
  return (Object.entries(set) as [ConditionType, ConditionValue][]).map(([type, value]) => {
    const before = previous?.find((p) => p.type === type);
    return {
      type,
      status: value.status,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      lastTransitionTime: before && before.status === value.status ? before.lastTransitionTime : now,
      reason: value.reason,
      message: value.message,
    };
  });
}
