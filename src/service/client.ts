// Typed client of the Deployment and Authorization Service: one method per endpoint of the interface
// (§4.1–§4.12) plus the real service's extras the operator uses. A faithful 1:1 of the wire: requests
// and responses are the wire shapes of wire.ts; responses are validated, unknown fields kept. A list is
// read item by item: an item that breaks the contract is left out of `resources` and reported in
// `rejected` (pages.ts).
import { z } from 'zod';
import type { ProbeAnswer } from './auth-gate.ts';
import { type ListedLogs, type LogTarget, logEndpoint, logsReader, walkLogs } from './logs.ts';
import type { ListedPage, RejectedItem } from './pages.ts';
import {
  type CallOptions,
  type CallSpec,
  type PageCallSpec,
  Transport,
  type TransportOptions,
} from './transport.ts';
import {
  AgentConnection,
  type ConnectAgentRequest,
  type CreateDeploymentRequest,
  type CreateListenerRequest,
  Deployment,
  Integration,
  type ListDeploymentsQuery,
  Listener,
  type ListRevisionsQuery,
  type LogsRequest,
  maxLogsLimit,
  OAuthProvider,
  OAuthToken,
  type Page,
  type PageQuery,
  type PatchDeploymentRequest,
  type PatchListenerRequest,
  Repository,
  Revision,
  type UpdateTokenMetadataRequest,
} from './wire.ts';

export type { ListedLogs, LogTarget } from './logs.ts';
export { describeLeftOut, type ListedPage, type RejectedItem } from './pages.ts';
export type { CallOptions, CallRecord, Timeouts } from './transport.ts';
export type ServiceClientOptions = TransportOptions;

export interface ListOptions extends CallOptions {
  /**
   * Takes each item left out because it breaks the contract. Without it, such an item fails the walk:
   * a caller looking for one item could not tell whether the one left out was it.
   */
  onRejected?: ((item: RejectedItem) => void) | undefined;
}

const Providers = z.array(OAuthProvider);
const Integrations = z.array(Integration);
const Repositories = z.array(Repository);

/** Page size of the walking helpers: the interface's maximum, so a walk takes the fewest calls. */
const walkLimit = 100;
/** Page size of a log walk: the most one logs request may ask for. */
const logsWalkLimit = maxLogsLimit;

export class ServiceClient {
  readonly #transport: Transport;

  constructor(options: ServiceClientOptions) {
    this.#transport = new Transport(options);
  }

  /** Closes the connection pool once calls in flight are done. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /** Whether a rejected key holds every call back until a probe succeeds (an auth gate). */
  get holdsCallsOnRejectedKey(): boolean {
    return this.#transport.authGate !== undefined;
  }

  /**
   * Calls `listener` whenever the service accepts the key again after rejecting it (only with an auth
   * gate; never otherwise). Returns a function that removes the listener.
   */
  onAuthRestored(listener: () => void): () => void {
    return this.#transport.authGate?.onReopen(listener) ?? (() => {});
  }

  /** Calls `listener` whenever the service rejects the key (only with an auth gate). */
  onAuthRejected(listener: () => void): () => void {
    return this.#transport.authGate?.onReject(listener) ?? (() => {});
  }

  /**
   * One cheap authenticated call, past the auth gate: the HTTP status the service answered with
   * (undefined: no answer) and its words. The gate learns from it: an accepted key reopens it.
   */
  checkKey(options?: CallOptions): Promise<ProbeAnswer> {
    return this.#transport.checkKey(options?.signal);
  }

  /**
   * Throws the same 401 a call would get while the service rejects the key, without calling anything:
   * for work that must not start (e.g. a marker written before a create) when its call cannot be sent.
   */
  assertAuthorized(endpoint: string): void {
    this.#transport.authGate?.check(endpoint, '(not called)');
  }

  #call<T>(spec: CallSpec<T>, options?: CallOptions): Promise<T> {
    return this.#transport.call(spec, options);
  }

  #callPage<I>(spec: PageCallSpec<I>, options?: CallOptions): Promise<ListedPage<I>> {
    return this.#transport.callPage(spec, options);
  }

  // §4.1
  updateTokenMetadata(tokenId: string, body: UpdateTokenMetadataRequest, options?: CallOptions) {
    return this.#call(
      {
        method: 'PATCH',
        template: '/v2/auth/tokens/{token_id}/metadata',
        params: { token_id: tokenId },
        body,
        response: OAuthToken,
      },
      options,
    );
  }

  // §4.2
  listProviders(options?: CallOptions) {
    return this.#call({ method: 'GET', template: '/v2/auth/providers', response: Providers }, options);
  }

  // §4.3
  listRepos(integrationId: string, options?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        template: '/v1/integrations/codehost/{integration_id}/repos',
        params: { integration_id: integrationId },
        response: Repositories,
      },
      options,
    );
  }

  // §4.4
  listHostedRepos(integrationId: string, options?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        template: '/v1/integrations/hosted/codehost/{integration_id}/repos',
        params: { integration_id: integrationId },
        response: Repositories,
      },
      options,
    );
  }

  // §4.5
  connectAgent(agentId: string, body: ConnectAgentRequest, options?: CallOptions) {
    return this.#call(
      {
        method: 'POST',
        template: '/v2/auth/agents/{agent_id}/connections',
        params: { agent_id: agentId },
        body,
        response: AgentConnection,
      },
      options,
    );
  }

  // §4.6
  createDeployment(body: CreateDeploymentRequest, options?: CallOptions) {
    return this.#call({ method: 'POST', template: '/v2/deployments', body, response: Deployment }, options);
  }

  // §4.7
  listIntegrations(options?: CallOptions) {
    return this.#call(
      { method: 'GET', template: '/v1/integrations/codehost/install', response: Integrations },
      options,
    );
  }

  // §4.8
  patchDeployment(deploymentId: string, body: PatchDeploymentRequest, options?: CallOptions) {
    return this.#call(
      {
        method: 'PATCH',
        template: '/v2/deployments/{deployment_id}',
        params: { deployment_id: deploymentId },
        body,
        response: Deployment,
      },
      options,
    );
  }

  /** Real-service extra: 204 on success; a 404 is a ServiceError with `isNotFound`. */
  async deleteDeployment(deploymentId: string, options?: CallOptions): Promise<void> {
    await this.#call(
      {
        method: 'DELETE',
        template: '/v2/deployments/{deployment_id}',
        params: { deployment_id: deploymentId },
        response: undefined,
      },
      options,
    );
  }

  // §4.9
  listRevisions(
    deploymentId: string,
    query: ListRevisionsQuery = {},
    options?: CallOptions,
  ): Promise<ListedPage<Revision>> {
    return this.#callPage(
      {
        method: 'GET',
        template: '/v2/deployments/{deployment_id}/revisions',
        params: { deployment_id: deploymentId },
        query: { ...query },
        item: Revision,
      },
      options,
    );
  }

  // §4.10
  listDeployments(query: ListDeploymentsQuery = {}, options?: CallOptions): Promise<ListedPage<Deployment>> {
    return this.#callPage(
      { method: 'GET', template: '/v2/deployments', query: { ...query }, item: Deployment },
      options,
    );
  }

  // §4.11
  listListeners(query: PageQuery = {}, options?: CallOptions): Promise<ListedPage<Listener>> {
    return this.#callPage(
      { method: 'GET', template: '/v2/listeners', query: { ...query }, item: Listener },
      options,
    );
  }

  // §4.12
  getListener(listenerId: string, options?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        template: '/v2/listeners/{listener_id}',
        params: { listener_id: listenerId },
        response: Listener,
      },
      options,
    );
  }

  /** Real-service extra: registers a listener (a plan without listener management answers 403). */
  createListener(body: CreateListenerRequest, options?: CallOptions) {
    return this.#call({ method: 'POST', template: '/v2/listeners', body, response: Listener }, options);
  }

  /** Real-service extra: sets compute_config (compute_type and compute_id cannot change). */
  patchListener(listenerId: string, body: PatchListenerRequest, options?: CallOptions) {
    return this.#call(
      {
        method: 'PATCH',
        template: '/v2/listeners/{listener_id}',
        params: { listener_id: listenerId },
        body,
        response: Listener,
      },
      options,
    );
  }

  /** Real-service extra: 204 on success; a 404 is a ServiceError with `isNotFound`. */
  async deleteListener(listenerId: string, options?: CallOptions): Promise<void> {
    await this.#call(
      {
        method: 'DELETE',
        template: '/v2/listeners/{listener_id}',
        params: { listener_id: listenerId },
        response: undefined,
      },
      options,
    );
  }

  /**
   * Real-service extra: one page of a build or deploy log (`target`). The service reads it by POST, so the
   * client's rule for POST holds: not sent again after a 5xx (only on 429 or when it was never sent).
   */
  readLogs(target: LogTarget, body: LogsRequest, options?: CallOptions): Promise<ListedLogs> {
    return this.#transport.callReading({ method: 'POST', ...logEndpoint(target), body }, logsReader, options);
  }

  /** Every entry of a log from `offset` (default 0), across pages, in the order asked for. */
  iterateLogs(
    target: LogTarget,
    query: Omit<LogsRequest, 'offset' | 'limit'> & { limit?: number },
    options?: ListOptions & { offset?: number },
  ) {
    const limit = query.limit ?? logsWalkLimit;
    return walkLogs(
      (offset) => this.readLogs(target, { ...query, limit, offset }, options),
      { limit },
      options?.onRejected,
      options?.offset,
    );
  }

  // Walking helpers: every item across offset pages, in the service's order; an item left out goes to
  // `onRejected`, or fails the walk.

  iterateDeployments(query: Omit<ListDeploymentsQuery, 'offset'> = {}, options?: ListOptions) {
    return walk(
      (offset, limit) => this.listDeployments({ ...query, offset, limit }, options),
      query.limit,
      options?.onRejected,
    );
  }

  iterateRevisions(
    deploymentId: string,
    query: Omit<ListRevisionsQuery, 'offset'> = {},
    options?: ListOptions,
  ) {
    return walk(
      (offset, limit) => this.listRevisions(deploymentId, { ...query, offset, limit }, options),
      query.limit,
      options?.onRejected,
    );
  }

  iterateListeners(query: Omit<PageQuery, 'offset'> = {}, options?: ListOptions) {
    return walk(
      (offset, limit) => this.listListeners({ offset, limit }, options),
      query.limit,
      options?.onRejected,
    );
  }

  listAllDeployments(query: Omit<ListDeploymentsQuery, 'offset'> = {}, options?: ListOptions) {
    return collect(this.iterateDeployments(query, options));
  }

  listAllRevisions(
    deploymentId: string,
    query: Omit<ListRevisionsQuery, 'offset'> = {},
    options?: ListOptions,
  ) {
    return collect(this.iterateRevisions(deploymentId, query, options));
  }

  listAllListeners(query: Omit<PageQuery, 'offset'> = {}, options?: ListOptions) {
    return collect(this.iterateListeners(query, options));
  }

  /**
   * The deployment named exactly `name`: `name_contains` is a substring filter, so every page is read.
   * An item left out that may carry the name fails the lookup with its contract error: "none" would
   * make a caller create a second deployment of that name.
   */
  async findDeploymentByName(name: string, options?: CallOptions): Promise<Deployment | undefined> {
    const rejected: RejectedItem[] = [];
    const candidates = await this.listAllDeployments(
      { name_contains: name },
      { ...options, onRejected: (item) => rejected.push(item) },
    );
    const found = candidates.find((d) => d.name === name);
    if (found) return found;
    const maybe = rejected.find((item) => item.name === undefined || item.name === name);
    if (maybe) throw maybe.error;
    return undefined;
  }

  /**
   * The listener registered for `computeId` (unique per tenant). Good entries are searched past a broken
   * one; "none" is answered only when no entry was left out, since a broken one may be it.
   */
  async findListenerByComputeId(computeId: string, options?: CallOptions): Promise<Listener | undefined> {
    const rejected: RejectedItem[] = [];
    const listeners = await this.listAllListeners(
      { limit: 100 },
      { ...options, onRejected: (item) => rejected.push(item) },
    );
    const found = listeners.find((l) => l.compute_id === computeId);
    if (found) return found;
    if (rejected[0]) throw rejected[0].error;
    return undefined;
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * Walks offset pages until one holds fewer than `limit` items (those left out count: they were sent).
 * The next offset is the page's `offset` (§2.14: "pass it as the offset of the next request"), but never
 * less than the items seen so far: a service that echoes the request's offset instead still advances,
 * and one that sends a stale offset cannot make the walk loop. Without `onRejected`, an item left out
 * fails the walk with its contract error.
 */
export async function* walk<T>(
  fetchPage: (offset: number, limit: number) => Promise<Page<T> & { rejected?: readonly RejectedItem[] }>,
  limit: number = walkLimit,
  onRejected?: (item: RejectedItem) => void,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetchPage(offset, limit);
    const rejected = page.rejected ?? [];
    if (rejected.length > 0 && !onRejected) throw rejected[0]!.error;
    for (const item of rejected) onRejected?.(item);
    yield* page.resources;
    const sent = page.resources.length + rejected.length;
    if (sent < limit) return;
    offset = Math.max(page.offset, offset + sent);
  }
}
