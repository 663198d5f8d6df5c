// Reconciles one AgentConnection resource (DESIGN.md §2): connect the agent to the token once, and keep
// the answer. The interface has no GET (or list) of a connection: status keeps what the POST answered,
// and a resource that carries a connection id never calls the service again.
import type { Logger } from 'pino';
import type { AgentConnectionResource, AgentConnectionStatus } from '../../api/agent-connection.ts';
import { annotations } from '../../api/constants.ts';
import type { Informer } from '../../runtime/informer.ts';
import { isConflict, type KubeClient } from '../../runtime/kube.ts';
import type { ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import { outcomeConditions, refusal, serviceTrouble } from '../conditions.ts';
import type { Problem } from '../deployment/conditions.ts';
import { OutcomeMemo } from '../memo.ts';
import { ResourceIO } from '../resource-io.ts';
import { AGENT_CONNECTIONS } from '../resources.ts';
import { nextStatus, previousObserved, transitionEvents } from '../status.ts';
import {
  certainlyNotMade,
  connectionStatus,
  connectPending,
  interrupted,
  knownConnectionId,
  type ObservedConnection,
} from './connection.ts';

export interface AgentConnectionReconcilerDeps {
  kube: KubeClient;
  service: ServiceClient;
  connections: Informer<AgentConnectionResource>;
  resyncMs: number;
  logger: Logger;
}

export class AgentConnectionReconciler {
  readonly #d: AgentConnectionReconcilerDeps;
  readonly #io: ResourceIO<AgentConnectionResource>;
  /** Refusals, so a refused connect is tried again once per resync period, not on every event. */
  readonly #refused: OutcomeMemo<Problem>;
  /** Connections this process made, by key and uid: a cache that has not caught up cannot hide them. */
  readonly #made = new Map<string, { uid: string; observed: ObservedConnection }>();

  constructor(deps: AgentConnectionReconcilerDeps) {
    this.#d = deps;
    this.#io = new ResourceIO(deps.kube, AGENT_CONNECTIONS, deps.logger);
    this.#refused = new OutcomeMemo(deps.resyncMs / 2);
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.#d.connections.get(key);
    if (!cached) {
      this.#refused.delete(key);
      this.#made.delete(key);
      return;
    }
    let cr = structuredClone(cached);
    const made = this.#made.get(key);
    const mine = made && made.uid === cr.metadata.uid ? made.observed : undefined;
    const id = knownConnectionId(cr) ?? mine?.connectionId;
    if (id) {
      await this.#recordId(cr, id);
      const previous = previousObserved(cr.status);
      // An id set by hand (after an interrupted connect) comes with nothing else that can be read.
      const observed =
        mine?.connectionId === id ? mine : previous.connectionId === id ? previous : { connectionId: id };
      await this.#write(cr, observed);
      return;
    }
    const refused = this.#refused.get(key, cr.metadata.generation ?? 0);
    if (refused) return this.#write(cr, {}, refused);
    const since = connectPending(cr);
    if (since !== undefined) return this.#write(cr, {}, interrupted(cr, since));

    const log = this.#d.logger.child({ agentConnection: key });
    try {
      // While the key is rejected no marker is written: it would be removed again at once, and the two
      // writes would wake this resource again and again.
      this.#d.service.assertAuthorized('POST /v2/auth/agents/{agent_id}/connections');
      cr = await this.#io.patchAnnotations(cr, { [annotations.createPending]: new Date().toISOString() });
      const outcome = await this.#connect(cr, log);
      await this.#write(cr, outcome.observed ?? {}, outcome.problem);
    } catch (err) {
      if (err instanceof ServiceError) await this.#write(cr, {}, serviceTrouble(err));
      throw err;
    }
  }

  /** The POST, after the pending marker is on the resource; its id is recorded at once. */
  async #connect(
    cr: AgentConnectionResource,
    log: Logger,
  ): Promise<{ observed?: ObservedConnection; problem?: Problem }> {
    const since = connectPending(cr)!;
    let observed: ObservedConnection;
    try {
      const connection = await this.#d.service.connectAgent(cr.spec.agentId, {
        oauth_token_id: cr.spec.oauthTokenId,
      });
      observed = connectionStatus(connection);
    } catch (err) {
      // The marker stays: the next reconcile reports the interrupted connect instead of posting again.
      if (!certainlyNotMade(err)) {
        log.warn({ err: (err as Error).message }, 'connect call failed after it was sent; not repeating it');
        return { problem: interrupted(cr, since) };
      }
      await this.#io.patchAnnotations(cr, { [annotations.createPending]: null });
      const problem = refusal(err);
      this.#refused.set(keyOf(cr), cr.metadata.generation ?? 0, problem);
      return { problem };
    }
    this.#made.set(keyOf(cr), { uid: cr.metadata.uid!, observed });
    // Status first (no precondition to fail), then the annotation: either one stops a second POST.
    await this.#io.writeStatus(cr, { ...cr.status, ...observed });
    await this.#recordId(cr, observed.connectionId!);
    log.info({ connectionId: observed.connectionId }, 'connected agent to token');
    this.#io.event(cr, {
      type: 'Normal',
      reason: 'Connected',
      message: `connected agent ${cr.spec.agentId} to token ${cr.spec.oauthTokenId} (connection ${observed.connectionId})`,
    });
    return { observed };
  }

  /**
   * The id annotation, and no marker, with optimistic concurrency. A conflict means a newer version of
   * the resource exists; its own event brings it back here, so the conflict is left to that reconcile.
   */
  async #recordId(cr: AgentConnectionResource, id: string): Promise<void> {
    const a = cr.metadata.annotations ?? {};
    if (a[annotations.connectionId] === id && a[annotations.createPending] === undefined) return;
    try {
      await this.#io.patchAnnotations(cr, {
        [annotations.connectionId]: id,
        [annotations.createPending]: null,
      });
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }

  async #write(cr: AgentConnectionResource, observed: ObservedConnection, problem?: Problem): Promise<void> {
    const ready = `agent ${cr.spec.agentId} is connected to token ${cr.spec.oauthTokenId} (connection ${observed.connectionId})`;
    const next = nextStatus<AgentConnectionStatus>(
      cr.status,
      observed,
      outcomeConditions(problem, ready),
      cr.metadata.generation ?? 0,
      new Date().toISOString(),
    );
    if (await this.#io.writeStatus(cr, next))
      for (const event of transitionEvents(cr.status?.conditions, next.conditions!))
        this.#io.event(cr, event);
  }
}

const keyOf = (cr: AgentConnectionResource) => `${cr.metadata.namespace}/${cr.metadata.name}`;
