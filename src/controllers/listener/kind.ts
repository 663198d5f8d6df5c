// The Listener kind for the shared reconciler: bound by id or found by compute_id, registered when asked
// to (a lookup by compute_id, unique per tenant, precedes every create: a lost answer is found, not
// repeated), and compute_config kept in sync.
import type { ListenerResource } from '../../api/listener.ts';
import { ServiceError } from '../../service/errors.ts';
import type { CreateListenerRequest, Listener, PatchListenerRequest } from '../../service/wire.ts';
import { outcomeConditions } from '../managed/conditions.ts';
import type { ManagedKind, Via } from '../managed/kind.ts';
import { previousObserved } from '../managed/status.ts';
import { LISTENERS } from '../resources.ts';
import { computeIdOf, observedStatus } from './desired.ts';
import { type ListenerObservation, observeListener, planListener } from './planner.ts';

export type ListenerKind = ManagedKind<
  ListenerResource,
  undefined,
  ListenerObservation,
  Listener,
  CreateListenerRequest,
  PatchListenerRequest
>;

export function listenerKind(resyncMs: number): ListenerKind {
  const get = async (id: string, { service, signal }: Via) => {
    try {
      return await service.getListener(id, { signal });
    } catch (err) {
      if (err instanceof ServiceError && err.isNotFound) return undefined;
      throw err;
    }
  };
  const findByComputeId = (computeId: string, { service, signal }: Via) =>
    service.findListenerByComputeId(computeId, { signal });

  return {
    ref: LISTENERS,
    logKey: 'listener',
    refusalMemoMs: resyncMs / 2,
    // Nothing is requeued on a timer: a listener not there yet (or a refusal) is looked at again when the
    // informer's periodic resync wakes every resource, or when the spec changes.
    outcomeMemoMs: resyncMs / 2,
    forbidden: () => 'the service does not allow this API key to manage listeners',
    knownId: (cr) => cr.spec.listenerId ?? cr.status?.listenerId,
    deletes: () => false,
    resolve: async () => ({ inputs: undefined }),

    async observe(cr, context) {
      const { id, made } = context;
      const byId = cr.spec.listenerId;
      if (byId) {
        const listener = await get(byId, context);
        return listener ? { listener } : { missingId: byId };
      }
      // The id found earlier saves a walk over every page; it must still be this compute_id's listener.
      const computeId = computeIdOf(cr);
      const known = (made as Listener | undefined) ?? (id ? await get(id, context) : undefined);
      const listener = known?.compute_id === computeId ? known : await findByComputeId(computeId, context);
      return listener ? { listener } : {};
    },

    async observeNameTaken(cr, _observed, detail, via) {
      const listener = await findByComputeId(computeIdOf(cr), via);
      return listener ? { listener } : { nameTaken: detail };
    },

    plan: planListener,
    planObserved: observeListener,
    create: (_cr, request, { service, signal }) => service.createListener(request, { signal }),
    update: (target, patch, { service, signal }) => service.patchListener(target.id, patch, { signal }),
    remove: async () => 'gone' as const,
    idOf: (l) => l.id,
    describe: (l) => `listener ${l.id} (compute_id ${l.compute_id})`,

    async status(cr, { target, problem, looked }) {
      // Trouble reaching the service keeps what was observed: a Deployment may use the id.
      const observed = target ? observedStatus(target) : looked ? {} : previousObserved(cr.status);
      const ready = target
        ? `listener ${target.id} (compute_id ${target.compute_id}) is registered`
        : 'no listener';
      return { observed, conditions: outcomeConditions(problem, ready) };
    },
  };
}
