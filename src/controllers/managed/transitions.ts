// What a person is told when a resource's conditions move: one Warning Event (and one warn log line) per
// move into a failure or to a different failure, one Normal Event when it becomes Ready. Pure functions.
import { type ConditionReason, progressReasons } from '../../api/constants.ts';
import type { Condition } from '../../api/fields.ts';
import type { EventSpec } from './status.ts';

/** Reasons that are progress, not failure: the phases of a revision, and a pause someone chose. */
const progress: ReadonlySet<ConditionReason> = new Set([...progressReasons, 'ReconcilePaused']);

const find = (list: Condition[] | undefined, type: Condition['type']) => list?.find((c) => c.type === type);

/**
 * The failure the conditions show, if any: Stalled first (nothing changes without a person), then a spec
 * the service does not hold (Synced=False), then a Ready=False that is not progress.
 */
export function failureOf(
  conditions: Condition[] | undefined,
): { reason: string; message: string } | undefined {
  const stalled = find(conditions, 'Stalled');
  if (stalled?.status === 'True') return stalled;
  const synced = find(conditions, 'Synced');
  if (synced?.status === 'False' && !progress.has(synced.reason as ConditionReason)) return synced;
  const ready = find(conditions, 'Ready');
  if (ready?.status === 'False' && !progress.has(ready.reason as ConditionReason)) return ready;
  return undefined;
}

/** What a person was last told of a resource: whether it was Ready, and the failure, if any. */
export interface Announced {
  ready: boolean;
  failure: string | undefined;
}

export const announcedOf = (conditions: Condition[] | undefined): Announced => ({
  ready: find(conditions, 'Ready')?.status === 'True',
  failure: failureOf(conditions)?.reason,
});

/** The Events a move from what was last announced to `after` deserves. */
export function transitionEvents(before: Announced, after: Condition[]): EventSpec[] {
  const events: EventSpec[] = [];
  const ready = find(after, 'Ready');
  if (ready?.status === 'True' && !before.ready)
    events.push({ type: 'Normal', reason: 'Ready', message: ready.message });
  const failure = failureOf(after);
  if (failure && failure.reason !== before.failure)
    events.push({ type: 'Warning', reason: failure.reason, message: failure.message });
  return events;
}
