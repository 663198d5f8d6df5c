// What a kind's planner decides for one resource: a pure function of the resource, its resolved inputs
// and what the service was observed to hold. The reconciler carries a plan out; `agent-deploy diff`
// shows it. Both call the same planner, so they cannot disagree.
import { annotations } from '../../api/constants.ts';
import type { Problem } from './conditions.ts';

/** Taking over an object the service already holds: which, and why this resource may. */
export interface Adoption {
  why: string;
}

export type Plan<Create, Patch, External> =
  /** `replaces`: the id the resource was bound to, which the service no longer has. */
  | { action: 'create'; request: Create; replaces?: string }
  | { action: 'patch'; target: External; patch: Patch; fields: string[]; adopt?: Adoption }
  | { action: 'nothing'; target?: External; adopt?: Adoption }
  | { action: 'cannot'; target?: External; adopt?: Adoption; problem: Problem };

/** "true": the operator observes nothing and changes nothing for this resource. */
export const isPaused = (cr: { metadata: { annotations?: Record<string, string> } }): boolean =>
  cr.metadata.annotations?.[annotations.paused] === 'true';
