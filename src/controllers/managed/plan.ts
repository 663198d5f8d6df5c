// What a kind's planner decides for one resource: a pure function of the resource, its resolved inputs
// and what the service was observed to hold. The reconciler carries a plan out; `agent-deploy diff`
// shows it. Both call the same planner, so they cannot disagree.
import { annotations } from '../../api/constants.ts';
import type { Condition } from '../../api/fields.ts';
import { observingReason, type Problem } from './conditions.ts';

/** Taking over an object the service already holds: which, and why this resource may. */
export interface Adoption {
  why: string;
}

/**
 * What a resource with spec.managementPolicy Observe gets: the object it mirrors, or why there is none.
 * Neither writes anything to the service.
 */
export type ObservePlan<External> =
  | { action: 'observe'; target: External }
  | { action: 'cannot'; target?: External; problem: Problem };

export type Plan<Create, Patch, External> =
  /** `replaces`: the id the resource was bound to, which the service no longer has. */
  | { action: 'create'; request: Create; replaces?: string }
  | { action: 'patch'; target: External; patch: Patch; fields: string[]; adopt?: Adoption }
  | { action: 'nothing'; target?: External; adopt?: Adoption }
  | { action: 'cannot'; target?: External; adopt?: Adoption; problem: Problem }
  | { action: 'observe'; target: External; adopt?: undefined };

/** "true": the operator observes nothing and changes nothing for this resource. */
export const isPaused = (cr: { metadata: { annotations?: Record<string, string> } }): boolean =>
  cr.metadata.annotations?.[annotations.paused] === 'true';

/**
 * spec.managementPolicy Observe: the operator reads the service object and writes nothing to the service
 * (no create, patch or delete, no create-pending marker, no finalizer). The one test of the policy.
 */
export const isObserved = (cr: { spec?: unknown }): boolean =>
  (cr.spec as { managementPolicy?: string } | undefined)?.managementPolicy === 'Observe';

/**
 * The last status was written while the resource was observed (its Synced reason says so): a resource
 * switched to Manage takes over what it mirrored, as with spec.adopt.
 */
export const wasObserved = (cr: { status?: { conditions?: Condition[] } }): boolean =>
  cr.status?.conditions?.some((c) => c.type === 'Synced' && c.reason === observingReason) ?? false;
