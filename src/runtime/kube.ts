// A narrow Kubernetes client for controllers: any resource by {group, version, plural, namespaced}.
//
// Why raw HTTP over undici rather than client-node's typed APIs (CustomObjectsApi, CoreV1Api, ...):
// - in client-node 2.0.1 every typed call goes through `applySecurityAuthentication`, which builds a
//   new undici Agent (connection pool) per request and never closes it: sockets and TLS handshakes
//   pile up under a controller's request rate;
// - its Watch hides the HTTP status of a failed watch and swallows unparsable lines, and its model
//   serializer drops fields it has no name for (e.g. `x-kubernetes-*` on CRDs, unknown CR fields);
// - a merge patch (rather than its default JSON patch) needs per-call middleware there;
// - loading its API layer costs ≈30 MB of memory (every generated model).
// The kubeconfig (kubeconfig.ts: files, KUBECONFIG lists, in-cluster) gives server, TLS and the user;
// kube-credentials.ts gives fresh credentials for every request (rotated token files, exec plugins),
// and kube-dispatchers.ts one pooled undici Agent that follows the client certificate.
import { type Dispatcher, request } from 'undici';
import { type Credentials, UserCredentials } from './kube-credentials.ts';
import { KubeDispatchers } from './kube-dispatchers.ts';
import { isGone, isNotFound, KubeError, statusError } from './kube-errors.ts';
import {
  EVENTS,
  type KubeObject,
  LEASES,
  type Lease,
  type ResourceRef,
  resourcePath,
  SECRETS,
  type Secret,
} from './kube-objects.ts';
import type { KubeconfigLike } from './kubeconfig.ts';

export type WatchEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  /** Only metadata.resourceVersion is meaningful. */
  | { type: 'BOOKMARK'; object: KubeObject }
  | { type: 'ERROR'; error: KubeError };

/** What every request takes. */
export interface RequestOptions {
  /** Ends the request early: it rejects with the signal's reason (a watch's stream just ends). */
  signal?: AbortSignal;
}

export interface ListOptions extends RequestOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Ask for PartialObjectMetadata: name, versions, labels and annotations, never the rest (a Secret's
   * data stays on the server). No fallback to whole objects: a server that cannot answers 406.
   */
  metadataOnly?: boolean;
}

export interface ListPage<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface WatchOptions extends ListOptions {
  resourceVersion: string;
  /** Asks the server to end the watch after this long (clean end; the caller re-watches). */
  timeoutSeconds?: number;
}

export interface WriteOptions extends RequestOptions {
  /** Optimistic concurrency: the write fails with 409 Conflict unless the object still has this version. */
  resourceVersion?: string;
  fieldManager?: string;
}

export interface DeleteOptions extends RequestOptions {
  /** Preconditions: the delete fails with 409 Conflict unless the object still has this uid / version. */
  uid?: string;
  resourceVersion?: string;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
}

const partialMetadata = (kind: 'PartialObjectMetadata' | 'PartialObjectMetadataList') =>
  `application/json;as=${kind};g=meta.k8s.io;v=v1`;

export interface KubeClientOptions {
  /** Deadline of each request but watches, from the call to the end of the body (default 30 s). */
  requestTimeoutMs?: number;
  /** Page size of listAll (default 500). */
  pageSize?: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export class KubeClient {
  readonly #server: string;
  readonly #credentials: UserCredentials;
  /**
   * The pool for short requests, and a connection of its own for each watch, destroyed when the
   * watch ends: a watch that went silent must not leave its dead socket in the pool (undici reuses a
   * socket after an aborted request), and a long-lived stream must not hold a pooled connection.
   */
  readonly #dispatchers: KubeDispatchers;
  readonly #watchDispatchers = new Set<Dispatcher>();
  readonly #timeoutMs: number;
  readonly #pageSize: number;
  #openWatches = 0;

  /**
   * `kc` is what loadKubeconfig returns, or a client-node KubeConfig. The user's credentials are
   * fetched once here, so a broken kubeconfig or exec plugin fails at start.
   */
  static async fromKubeConfig(kc: KubeconfigLike, options: KubeClientOptions = {}): Promise<KubeClient> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const credentials = new UserCredentials(kc.getCurrentUser(), { kubeconfig: kc, cluster });
    const dispatchers = new KubeDispatchers(cluster);
    dispatchers.pooled(await credentials.get());
    return new KubeClient(cluster.server.replace(/\/+$/, ''), credentials, dispatchers, options);
  }

  private constructor(
    server: string,
    credentials: UserCredentials,
    dispatchers: KubeDispatchers,
    options: KubeClientOptions,
  ) {
    this.#server = server;
    this.#credentials = credentials;
    this.#dispatchers = dispatchers;
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#pageSize = options.pageSize ?? 500;
  }

  /** Watches whose HTTP stream is open right now. */
  get openWatches(): number {
    return this.#openWatches;
  }

  /** Closes every pooled connection; the client is unusable afterwards. */
  async close(): Promise<void> {
    await Promise.all([this.#dispatchers.destroy(), ...[...this.#watchDispatchers].map((d) => d.destroy())]);
  }

  async get<T extends KubeObject>(
    res: ResourceRef,
    name: string,
    namespace?: string,
    options: RequestOptions = {},
  ): Promise<T> {
    return this.#json<T>('GET', resourcePath(res, namespace, name), { signal: options.signal });
  }

  /** The object, or undefined when the apiserver has none (404). */
  async find<T extends KubeObject>(
    res: ResourceRef,
    name: string,
    namespace?: string,
    options: RequestOptions = {},
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(res, name, namespace, options);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** One page of a list. */
  async list<T extends KubeObject>(
    res: ResourceRef,
    options: ListOptions & { limit?: number; continue?: string } = {},
  ): Promise<ListPage<T>> {
    const query = new URLSearchParams();
    if (options.labelSelector) query.set('labelSelector', options.labelSelector);
    if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
    if (options.limit) query.set('limit', String(options.limit));
    if (options.continue) query.set('continue', options.continue);
    const body = await this.#json<{ items: T[]; metadata: { resourceVersion: string; continue?: string } }>(
      'GET',
      `${resourcePath(res, options.namespace)}?${query}`,
      {
        signal: options.signal,
        ...(options.metadataOnly ? { accept: partialMetadata('PartialObjectMetadataList') } : {}),
      },
    );
    return {
      items: body.items ?? [],
      resourceVersion: body.metadata.resourceVersion,
      continue: body.metadata.continue || undefined,
    };
  }

  /**
   * Every page of a list, consistent at one resourceVersion. An expired continue token (410 while
   * paging a large list) restarts the list once from the first page.
   */
  async listAll<T extends KubeObject>(
    res: ResourceRef,
    options: ListOptions & { pageSize?: number } = {},
  ): Promise<ListPage<T>> {
    const items: T[] = [];
    let resourceVersion = '';
    for await (const page of this.listPages<T>(res, options)) {
      if (page.restarted) items.length = 0;
      items.push(...page.items);
      resourceVersion = page.resourceVersion;
    }
    return { items, resourceVersion };
  }

  /**
   * The pages of a list, one at a time, so a caller can use each before the next arrives and hold no
   * more than a page beyond what it keeps. An expired continue token restarts the list once from the
   * first page, marked `restarted`; the last page's resourceVersion is the list's.
   */
  async *listPages<T extends KubeObject>(
    res: ResourceRef,
    options: ListOptions & { pageSize?: number } = {},
  ): AsyncGenerator<ListPage<T> & { restarted?: boolean }> {
    const limit = options.pageSize ?? this.#pageSize;
    let restarted = false;
    let next: string | undefined;
    for (;;) {
      let page: ListPage<T>;
      try {
        page = await this.list<T>(res, { ...options, limit, continue: next });
      } catch (err) {
        if (!(isGone(err) && next && !restarted)) throw err;
        restarted = true;
        next = undefined;
        continue;
      }
      yield restarted && next === undefined ? { ...page, restarted } : page;
      next = page.continue;
      if (!next) return;
    }
  }

  /**
   * Opens a watch from `resourceVersion` with bookmarks; resolves once the server accepted it (a
   * refused request throws KubeError). The stream ends when the server closes it or `signal`
   * aborts; an error inside the stream (e.g. 410 Gone for a too-old resourceVersion) arrives as an
   * ERROR event. Iterate the stream to the end (or break out of it) so its connection is released.
   */
  async watch<T extends KubeObject>(
    res: ResourceRef,
    options: WatchOptions,
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    const query = new URLSearchParams({
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: options.resourceVersion,
    });
    if (options.labelSelector) query.set('labelSelector', options.labelSelector);
    if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
    if (options.timeoutSeconds) query.set('timeoutSeconds', String(options.timeoutSeconds));
    let dispatcher: Dispatcher | undefined;
    const release = () => {
      if (!dispatcher) return;
      this.#watchDispatchers.delete(dispatcher);
      dispatcher.destroy().catch(() => {});
      dispatcher = undefined;
    };
    let response: Dispatcher.ResponseData;
    try {
      response = await this.#send(
        'GET',
        `${resourcePath(res, options.namespace)}?${query}`,
        (credentials) => {
          release();
          dispatcher = this.#dispatchers.single(credentials);
          this.#watchDispatchers.add(dispatcher);
          return dispatcher;
        },
        {
          signal: options.signal,
          ...(options.metadataOnly ? { accept: partialMetadata('PartialObjectMetadata') } : {}),
          headersTimeout: this.#timeoutMs,
          // Silence detection is the caller's (the informer's watchdog); the server ends watches itself.
          bodyTimeout: 0,
        },
      );
    } catch (err) {
      release();
      if (options.signal?.aborted) return noEvents();
      throw err;
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      release();
      throw statusError(response.statusCode, text);
    }
    return this.#events<T>(response.body, options.signal, release);
  }

  async *#events<T extends KubeObject>(
    body: Dispatcher.ResponseData['body'],
    signal: AbortSignal | undefined,
    release: () => void,
  ): AsyncGenerator<WatchEvent<T>> {
    this.#openWatches++;
    try {
      for await (const line of lines(body)) {
        const event = JSON.parse(line) as { type: string; object: T & Record<string, unknown> };
        if (event.type === 'ERROR') {
          const s = event.object as { code?: number; reason?: string; message?: string; details?: unknown };
          yield {
            type: 'ERROR',
            error: new KubeError(s.code ?? 500, s.reason ?? '', s.message ?? '', s.details),
          };
        } else {
          yield event as WatchEvent<T>;
        }
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
    } finally {
      this.#openWatches--;
      body.destroy();
      release();
    }
  }

  async create<T extends KubeObject>(res: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(res, obj.metadata.namespace);
    return this.#json<T>('POST', withQuery(path, options), { body: obj, signal: options.signal });
  }

  /** PUT of the whole object; its metadata.resourceVersion makes it conditional. */
  async update<T extends KubeObject>(res: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(res, obj.metadata.namespace, obj.metadata.name);
    return this.#json<T>('PUT', withQuery(path, options), { body: obj, signal: options.signal });
  }

  /** RFC 7386 merge patch; with `resourceVersion` it fails with 409 if the object moved on. */
  async mergePatch<T extends KubeObject>(
    res: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Record<string, unknown>,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): Promise<T> {
    const body = options.resourceVersion ? withResourceVersion(patch, options.resourceVersion) : patch;
    const path = resourcePath(res, namespace, name, options.subresource);
    return this.#json<T>('PATCH', withQuery(path, options), {
      body,
      contentType: 'application/merge-patch+json',
      signal: options.signal,
    });
  }

  async delete(
    res: ResourceRef,
    name: string,
    namespace?: string,
    options: DeleteOptions = {},
  ): Promise<void> {
    const preconditions =
      options.uid || options.resourceVersion
        ? { uid: options.uid, resourceVersion: options.resourceVersion }
        : undefined;
    const body = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions,
      propagationPolicy: options.propagationPolicy,
    };
    await this.#json('DELETE', resourcePath(res, namespace, name), { body, signal: options.signal });
  }

  getSecret(namespace: string, name: string, options: RequestOptions = {}): Promise<Secret> {
    return this.get<Secret>(SECRETS, name, namespace, options);
  }

  /** Records a core/v1 Event; see buildEvent. */
  createEvent(event: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    return this.create(EVENTS, event, options);
  }

  getLease(namespace: string, name: string, options: RequestOptions = {}): Promise<Lease> {
    return this.get<Lease>(LEASES, name, namespace, options);
  }

  createLease(lease: Lease, options: RequestOptions = {}): Promise<Lease> {
    return this.create(LEASES, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }, options);
  }

  /** Conditional on lease.metadata.resourceVersion. */
  updateLease(lease: Lease, options: RequestOptions = {}): Promise<Lease> {
    return this.update(LEASES, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }, options);
  }

  /**
   * One request with the current credentials. A 401 means the credentials were refused before
   * anything happened: when they can be refreshed (a rotated token file, an exec plugin) the request
   * is sent once more with fresh ones.
   */
  async #send(
    method: Method,
    path: string,
    dispatcherFor: (credentials: Credentials) => Dispatcher,
    init: {
      body?: string;
      contentType?: string;
      accept?: string;
      signal?: AbortSignal | undefined;
      headersTimeout: number;
      bodyTimeout: number;
    },
  ): Promise<Dispatcher.ResponseData> {
    for (let attempt = 0; ; attempt++) {
      const credentials = await this.#credentials.get();
      const headers: Record<string, string> = {
        accept: init.accept ?? 'application/json',
        ...credentials.headers,
      };
      if (init.contentType) headers['content-type'] = init.contentType;
      const response = await request(`${this.#server}${path}`, {
        method,
        signal: init.signal,
        headers,
        body: init.body,
        dispatcher: dispatcherFor(credentials),
        headersTimeout: init.headersTimeout,
        bodyTimeout: init.bodyTimeout,
      });
      if (response.statusCode !== 401 || attempt > 0 || !this.#credentials.refused(credentials))
        return response;
      await response.body.dump();
    }
  }

  async #json<T>(
    method: Method,
    path: string,
    init: { body?: unknown; contentType?: string; accept?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await this.#send(method, path, (credentials) => this.#dispatchers.pooled(credentials), {
      signal,
      ...(init.body === undefined
        ? {}
        : { body: JSON.stringify(init.body), contentType: init.contentType ?? 'application/json' }),
      ...(init.accept ? { accept: init.accept } : {}),
      // The deadline bounds the whole request, time queued for a pooled connection included.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw statusError(response.statusCode, text);
    return JSON.parse(text) as T;
  }
}

async function* noEvents(): AsyncGenerator<never> {}

/** Newline-delimited JSON lines of a stream (a watch sends one event per line). */
async function* lines(stream: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield line;
      newline = buffered.indexOf('\n');
    }
  }
  if (buffered.trim()) yield buffered.trim();
}

function withQuery(path: string, options: WriteOptions): string {
  return options.fieldManager ? `${path}?fieldManager=${encodeURIComponent(options.fieldManager)}` : path;
}

function withResourceVersion(
  patch: Record<string, unknown>,
  resourceVersion: string,
): Record<string, unknown> {
  const metadata = (patch.metadata ?? {}) as Record<string, unknown>;
  return { ...patch, metadata: { ...metadata, resourceVersion } };
}
