// What the operator does for a Listener resource, from the resource and the listener the service was seen
// to hold. A pure function: the reconciler carries its plan out.
import type { ListenerResource } from '../../api/listener.ts';
import type { CreateListenerRequest, Listener, PatchListenerRequest } from '../../service/wire.ts';
import { isObserved, type ObservePlan, type Plan } from '../managed/plan.ts';
import { computeIdOf, configPatch, createRequest, identityProblem } from './desired.ts';

export interface ListenerObservation {
  /** The listener bound by spec.listenerId, by the id status knows, or found by compute_id. */
  listener?: Listener;
  /** spec.listenerId names a listener the service does not have. */
  missingId?: string;
  /** The service answered a register with 409 and no listener holds the compute_id; its words. */
  nameTaken?: string;
}

export type ListenerPlan = Plan<CreateListenerRequest, PatchListenerRequest, Listener>;

/** The service has no listener of that id: looked for again at each resync. */
const missing = (id: string) =>
  ({
    action: 'cannot',
    problem: { reason: 'NotFound', message: `the service has no listener ${id}`, stalled: false },
  }) as const;

/**
 * A Listener with spec.managementPolicy Observe: the listener bound by id or found by compute_id, never
 * registered or patched, whatever spec.register says. A compute_id that contradicts it still says so.
 */
export function observeListener(cr: ListenerResource, observed: ListenerObservation): ObservePlan<Listener> {
  const { listener } = observed;
  if (observed.missingId) return missing(observed.missingId);
  if (!listener)
    return {
      action: 'cannot',
      problem: {
        reason: 'NotFound',
        message: `the service has no listener with compute_id ${computeIdOf(cr)}; with spec.managementPolicy: Observe the operator does not register it`,
        stalled: false,
      },
    };
  const mismatch = identityProblem(cr, listener);
  return mismatch
    ? { action: 'cannot', target: listener, problem: mismatch }
    : { action: 'observe', target: listener };
}

export function planListener(
  cr: ListenerResource,
  _inputs: unknown,
  observed: ListenerObservation,
): ListenerPlan {
  if (isObserved(cr)) return observeListener(cr, observed);
  const { listener } = observed;
  if (observed.missingId) return missing(observed.missingId);
  if (!listener) {
    const computeId = computeIdOf(cr);
    if (observed.nameTaken !== undefined)
      return {
        action: 'cannot',
        problem: { reason: 'InvalidSpec', message: observed.nameTaken, stalled: true },
      };
    if (!cr.spec.register)
      return {
        action: 'cannot',
        problem: {
          reason: 'NotFound',
          message: `the service has no listener with compute_id ${computeId}; set spec.register: true to create it`,
          stalled: false,
        },
      };
    return { action: 'create', request: createRequest(cr) };
  }
  const mismatch = identityProblem(cr, listener);
  if (mismatch) return { action: 'cannot', target: listener, problem: mismatch };
  const patch = configPatch(cr, listener);
  return patch
    ? { action: 'patch', target: listener, patch, fields: ['computeConfig'] }
    : { action: 'nothing', target: listener };
}
