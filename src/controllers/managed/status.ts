// Status of the Listener, AgentConnection and OAuthToken resources: the next status from what was
// observed, the merge patch that writes it, and the Events its transitions deserve. Pure functions.
import { isDeepStrictEqual } from 'node:util';
import type { Condition } from '../api/fields.ts';
import { type ConditionSet, toConditions } from './deployment/conditions.ts';

export interface BaseStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}

/** `observed` is the whole observed part: a field it lacks is no longer known and leaves status. */
export function nextStatus<S extends BaseStatus>(
  prev: S | undefined,
  observed: Omit<S, keyof BaseStatus>,
  set: ConditionSet,
  generation: number,
  now: string,
): S {
  return {
    ...observed,
    observedGeneration: generation,
    conditions: toConditions(set, prev?.conditions, generation, now),
  } as S;
}

/** The observed part of a status (all but observedGeneration and conditions). */
export function previousObserved<S extends BaseStatus>(status: S | undefined): Omit<S, keyof BaseStatus> {
  const { observedGeneration: _g, conditions: _c, ...observed } = status ?? ({} as S);
  return observed;
}

const normalize = (s: object): Record<string, unknown> => JSON.parse(JSON.stringify(s));

/** Writing `next` over `prev` would change nothing. */
export function statusUnchanged(prev: object | undefined, next: object): boolean {
  return isDeepStrictEqual(normalize(prev ?? {}), normalize(next));
}

/** The merge patch of `status` that turns `prev` into `next`: fields `next` lacks are removed. */
export function statusPatch(prev: object | undefined, next: object): Record<string, unknown> {
  const patch: Record<string, unknown> = normalize(next);
  for (const key of Object.keys(prev ?? {})) if (!(key in patch)) patch[key] = null;
  return patch;
}

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Events for transitions only: becoming Ready, and becoming Stalled (or Stalled for a new reason). */
export function transitionEvents(before: Condition[] | undefined, after: Condition[]): EventSpec[] {
  const find = (list: Condition[] | undefined, type: Condition['type']) => list?.find((x) => x.type === type);
  const events: EventSpec[] = [];
  const ready = find(after, 'Ready');
  if (ready?.status === 'True' && find(before, 'Ready')?.status !== 'True')
    events.push({ type: 'Normal', reason: 'Ready', message: ready.message });
  const stalled = find(after, 'Stalled');
  const was = find(before, 'Stalled');
  if (stalled?.status === 'True' && (was?.status !== 'True' || was.reason !== stalled.reason))
    events.push({ type: 'Warning', reason: stalled.reason, message: stalled.message });
  return events;
}
