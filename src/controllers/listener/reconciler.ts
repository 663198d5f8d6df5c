// Reconciles one Listener resource (DESIGN.md §2): find the service listener by id or by compute_id,
// create it when asked to (register: true), keep its compute_config in sync, and say so in status.
// The logic lives in pure functions (desired.ts, ../conditions.ts, ../status.ts); this file is the IO.
import type { Logger } from 'pino';
import type { ListenerResource, ListenerStatus } from '../../api/listener.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { KubeClient } from '../../runtime/kube.ts';
import type { ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import type { Listener } from '../../service/wire.ts';
import { outcomeConditions, refusal, serviceTrouble } from '../conditions.ts';
import type { Problem } from '../deployment/conditions.ts';
import { OutcomeMemo } from '../memo.ts';
import { ResourceIO } from '../resource-io.ts';
import { LISTENERS } from '../resources.ts';
import { nextStatus, previousObserved, transitionEvents } from '../status.ts';
import { computeIdOf, configPatch, createRequest, identityProblem, observedStatus } from './desired.ts';

export interface ListenerReconcilerDeps {
  kube: KubeClient;
  service: ServiceClient;
  listeners: Informer<ListenerResource>;
  resyncMs: number;
  logger: Logger;
}

interface Outcome {
  listener?: Listener;
  problem?: Problem;
  /** Status fields to keep when there is no listener to show. */
  observed?: Omit<ListenerStatus, 'observedGeneration' | 'conditions'>;
}

const forbidden = 'the service does not allow this API key to manage listeners';

export class ListenerReconciler {
  readonly #d: ListenerReconcilerDeps;
  readonly #io: ResourceIO<ListenerResource>;
  readonly #memo: OutcomeMemo<Outcome>;

  constructor(deps: ListenerReconcilerDeps) {
    this.#d = deps;
    this.#io = new ResourceIO(deps.kube, LISTENERS, deps.logger);
    this.#memo = new OutcomeMemo(deps.resyncMs / 2);
  }

  /**
   * Nothing is requeued on a timer: a listener that is not there yet (or a refusal) is looked at again
   * when the informer's periodic resync wakes every resource, or when the spec changes.
   */
  async reconcile(key: string): Promise<void> {
    const cached = this.#d.listeners.get(key);
    if (!cached) {
      this.#memo.delete(key);
      return;
    }
    const cr = structuredClone(cached);
    const generation = cr.metadata.generation ?? 0;
    const log = this.#d.logger.child({ listener: key });
    let outcome = this.#memo.get(key, generation);
    if (!outcome) {
      outcome = await this.#sync(cr, log).catch(async (err: unknown) => {
        // Trouble reaching the service says so, but keeps what was observed: a Deployment may use the id.
        if (err instanceof ServiceError)
          await this.#write(cr, {
            problem: serviceTrouble(err),
            observed: previousObserved(cr.status),
          });
        throw err;
      });
      this.#memo.set(key, generation, outcome);
    }
    await this.#write(cr, outcome);
  }

  async #sync(cr: ListenerResource, log: Logger): Promise<Outcome> {
    const computeId = computeIdOf(cr);
    const byId = cr.spec.listenerId;
    let listener: Listener | undefined;
    if (byId) {
      listener = await this.#get(byId);
      if (!listener)
        return {
          problem: { reason: 'NotFound', message: `the service has no listener ${byId}`, stalled: false },
        };
    } else {
      // The id found earlier saves a walk over every page; it must still be this compute_id's listener.
      const known = cr.status?.listenerId ? await this.#get(cr.status.listenerId) : undefined;
      listener = known?.compute_id === computeId ? known : await this.#findByComputeId(computeId);
    }
    if (!listener) {
      if (!cr.spec.register)
        return {
          problem: {
            reason: 'NotFound',
            message: `the service has no listener with compute_id ${computeId}; set spec.register: true to create it`,
            stalled: false,
          },
        };
      const made = await this.#create(cr, computeId, log);
      if (made.problem) return made;
      listener = made.listener!;
    }
    const mismatch = identityProblem(cr, listener);
    if (mismatch) return { listener, problem: mismatch };
    const patch = configPatch(cr, listener);
    if (patch) {
      try {
        listener = await this.#d.service.patchListener(listener.id, patch);
      } catch (err) {
        return { listener, problem: refusal(err, forbidden) };
      }
      log.info({ listenerId: listener.id }, 'updated compute_config of the service listener');
      this.#io.event(cr, {
        type: 'Normal',
        reason: 'Updated',
        message: `set compute_config of listener ${listener.id}`,
      });
    }
    return { listener };
  }

  /**
   * POST, crash-safely: every POST is preceded by the compute_id lookup (compute_id is unique per tenant),
   * so a create whose answer was lost is found, not repeated; the id is recorded in status at once.
   */
  async #create(cr: ListenerResource, computeId: string, log: Logger): Promise<Outcome> {
    let listener: Listener;
    try {
      listener = await this.#d.service.createListener(createRequest(cr));
    } catch (err) {
      if (err instanceof ServiceError && err.isConflict) {
        const found = await this.#findByComputeId(computeId);
        if (found) return { listener: found };
      }
      return { problem: refusal(err, forbidden) };
    }
    await this.#io.writeStatus(cr, { ...cr.status, ...observedStatus(listener) });
    log.info({ listenerId: listener.id, computeId }, 'registered service listener');
    this.#io.event(cr, {
      type: 'Normal',
      reason: 'Created',
      message: `registered listener ${listener.id} for compute_id ${computeId}`,
    });
    return { listener };
  }

  async #get(id: string): Promise<Listener | undefined> {
    try {
      return await this.#d.service.getListener(id);
    } catch (err) {
      if (err instanceof ServiceError && err.isNotFound) return undefined;
      throw err;
    }
  }

  async #findByComputeId(computeId: string): Promise<Listener | undefined> {
    const all = await this.#d.service.listAllListeners({ limit: 100 });
    return all.find((l) => l.compute_id === computeId);
  }

  /** Status from the outcome (only when it changes anything), and Events for its transitions. */
  async #write(cr: ListenerResource, outcome: Outcome): Promise<void> {
    const { listener, problem, observed } = outcome;
    const ready = listener
      ? `listener ${listener.id} (compute_id ${listener.compute_id}) is registered`
      : 'no listener';
    const next = nextStatus<ListenerStatus>(
      cr.status,
      listener ? observedStatus(listener) : (observed ?? {}),
      outcomeConditions(problem, ready),
      cr.metadata.generation ?? 0,
      new Date().toISOString(),
    );
    if (await this.#io.writeStatus(cr, next))
      for (const event of transitionEvents(cr.status?.conditions, next.conditions!))
        this.#io.event(cr, event);
  }
}
