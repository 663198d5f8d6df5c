// Status writes of every kind: the observed part of a status, whether a write would change anything,
// and the merge patch that writes it. Pure functions.
import { isDeepStrictEqual } from 'node:util';

/** The observed part of a status (all but observedGeneration and conditions). */
export function previousObserved(status: object | undefined): Record<string, unknown> {
  const { observedGeneration: _g, conditions: _c, ...observed } = (status ?? {}) as Record<string, unknown>;
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
