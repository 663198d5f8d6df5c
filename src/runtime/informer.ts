// A list + watch cache of one resource type, per namespace (or all namespaces).
//
// Each scope (a namespace, or the whole cluster) runs one loop: paginated list → watch from the
// list's resourceVersion with bookmarks → on a clean end re-watch from the last version seen; on
// 410 Gone relist and diff against the cache (so handlers see exactly the adds, updates and deletes
// they missed); on errors back off and retry. A watchdog restarts a watch that has delivered nothing
// (not even a bookmark, which the apiserver sends about once a minute) for `staleAfterMs`: the
// known failure of watches is to stop silently. A periodic relist re-delivers every object as an
// update (a resync), which keeps level-triggered controllers honest.
import type { Logger } from 'pino';
import { exponentialDelayMs, jittered } from './backoff.ts';
import { sleep } from './clock.ts';
import type { KubeClient, ListPage, WatchEvent } from './kube.ts';
import { isGone, type KubeError } from './kube-errors.ts';
import { type KubeObject, objectKey, type ResourceRef } from './kube-objects.ts';

/** Where the informer reads from (client-go's ListerWatcher). */
export interface ListerWatcher<T extends KubeObject> {
  /**
   * A full list of one scope (`namespace` undefined: all namespaces), page by page, consistent at the
   * last page's resourceVersion; a page marked `restarted` begins the list again from the start.
   */
  list(
    namespace: string | undefined,
    signal: AbortSignal,
  ): AsyncIterable<ListPage<T> & { restarted?: boolean }>;
  watch(
    namespace: string | undefined,
    resourceVersion: string,
    timeoutSeconds: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<WatchEvent<T>>>;
}

/**
 * Objects per list page. Each page is parsed whole; with the container's 1 MB young generation, a page
 * of hundreds of large objects is promoted to the old generation at once and swells the heap on every
 * relist. A hundred keeps a page young; a relist of 5,000 is 50 requests.
 */
const relistPageSize = 100;

export function resourceListerWatcher<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceRef,
  options: { labelSelector?: string; pageSize?: number } = {},
): ListerWatcher<T> {
  const { labelSelector, pageSize = relistPageSize } = options;
  return {
    async *list(namespace, signal) {
      for await (const page of client.listPages<T>(resource, {
        namespace,
        labelSelector,
        pageSize,
        signal,
      })) {
        for (const obj of page.items) withoutManagedFields(obj);
        yield page;
      }
    },
    async watch(namespace, resourceVersion, timeoutSeconds, signal) {
      const events = await client.watch<T>(resource, {
        namespace,
        labelSelector,
        resourceVersion,
        timeoutSeconds,
        signal,
      });
      return (async function* () {
        for await (const event of events) {
          if (event.type !== 'ERROR') withoutManagedFields(event.object);
          yield event;
        }
      })();
    },
  };
}

/**
 * Lists and watches only the identity of each object (PartialObjectMetadata, then just namespace, name,
 * uid and resourceVersion): enough to learn that an object appeared, changed or went, at a few hundred
 * bytes per object whatever its size. For kinds whose bodies are large or private (Secrets), where a
 * controller reads only the few it needs, on demand.
 */
export function metadataListerWatcher(client: KubeClient, resource: ResourceRef): ListerWatcher<KubeObject> {
  return {
    async *list(namespace, signal) {
      for await (const page of client.listPages(resource, { namespace, metadataOnly: true, signal }))
        yield { ...page, items: page.items.map(identity) };
    },
    async watch(namespace, resourceVersion, timeoutSeconds, signal) {
      const events = await client.watch(resource, {
        namespace,
        metadataOnly: true,
        resourceVersion,
        timeoutSeconds,
        signal,
      });
      return (async function* () {
        for await (const event of events) {
          yield event.type === 'ERROR' || event.type === 'BOOKMARK'
            ? event
            : { type: event.type, object: identity(event.object) };
        }
      })();
    },
  };
}

function identity(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = obj.metadata;
  return { metadata: { name, namespace, uid, resourceVersion } };
}

/** kubectl's client-side apply keeps a copy of the whole applied object here (Argo CD applies this way). */
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Appliers' bookkeeping, never read by a controller and often larger than the rest of the object:
 * metadata.managedFields (server-side apply; kept by the apiserver when an update leaves it out) and
 * kubectl's last-applied annotation (so a write must never PUT a cached object back: the operator only
 * merge-patches the fields it owns). Caches hold the object without them.
 */
function withoutManagedFields(obj: KubeObject): void {
  delete (obj.metadata as { managedFields?: unknown }).managedFields;
  if (obj.metadata.annotations?.[lastApplied] !== undefined) delete obj.metadata.annotations[lastApplied];
}

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  /** Also called on each periodic resync, with `oldObj` and `newObj` at the same resourceVersion. */
  onUpdate?(oldObj: T, newObj: T): void;
  /** With the last state the informer knew. */
  onDelete?(obj: T): void;
}

/** The index values of an object (client-go's IndexFunc): e.g. the Secrets a resource reads. */
export type IndexFunc<T> = (obj: T) => string[];

export interface InformerOptions {
  /** Namespaces to watch, each with its own list+watch; undefined means all namespaces. */
  namespaces?: string[];
  /** Periodic relist + resync (default 10 min; 0 disables). */
  resyncMs?: number;
  /** A watch silent this long is restarted (default 3 min: three missed bookmarks). */
  staleAfterMs?: number;
  /** Server-side watch timeout: a random value in [t, 2t) seconds, as client-go does (default 300). */
  watchTimeoutSeconds?: number;
  /** Reconnect backoff after errors (default 500 ms doubling to 30 s, jittered). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  logger?: Logger;
  /** Names this informer in logs. */
  name?: string;
}

export interface InformerStats {
  lists: number;
  watches: number;
  /** Watches restarted by the watchdog for silence. */
  staleRestarts: number;
  /** Relists caused by 410 Gone. */
  goneRelists: number;
}

type WatchEnd = 'closed' | 'gone' | 'stale' | 'resync' | 'stopped';

interface Scope {
  namespace: string | undefined;
  resourceVersion: string;
  synced: boolean;
  lastActivity: number;
  nextResyncAt: number;
}

export class Informer<T extends KubeObject> {
  readonly #source: ListerWatcher<T>;
  readonly #cache = new Map<string, T>();
  /** Per index: value → keys of the objects that have it. */
  readonly #indices = new Map<string, { fn: IndexFunc<T>; keys: Map<string, Set<string>> }>();
  readonly #handlers: InformerHandlers<T>[] = [];
  readonly #scopes: Scope[];
  readonly #resyncMs: number;
  readonly #staleAfterMs: number;
  readonly #watchTimeoutSeconds: number;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;
  readonly #log: Logger | undefined;
  readonly #stop = new AbortController();
  readonly #stats: InformerStats = { lists: 0, watches: 0, staleRestarts: 0, goneRelists: 0 };
  #loops: Promise<void>[] | undefined;
  readonly #syncWaiters: Array<() => void> = [];

  constructor(source: ListerWatcher<T>, options: InformerOptions = {}) {
    this.#source = source;
    this.#resyncMs = options.resyncMs ?? 600_000;
    this.#staleAfterMs = options.staleAfterMs ?? 180_000;
    this.#watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
    this.#backoffBaseMs = options.backoffBaseMs ?? 500;
    this.#backoffMaxMs = options.backoffMaxMs ?? 30_000;
    this.#log = options.logger?.child({ informer: options.name });
    const namespaces = options.namespaces ?? [undefined];
    this.#scopes = namespaces.map((namespace) => ({
      namespace,
      resourceVersion: '',
      synced: false,
      lastActivity: Date.now(),
      nextResyncAt: Number.POSITIVE_INFINITY,
    }));
  }

  /** Registers handlers; objects already cached are replayed to them as adds. */
  addHandlers(handlers: InformerHandlers<T>): void {
    this.#handlers.push(handlers);
    for (const obj of this.#cache.values()) this.#call(handlers, 'onAdd', obj);
  }

  /**
   * Adds an index (client-go's Indexer): byIndex(name, value) then answers without scanning the cache.
   * Add indexes before start().
   */
  addIndex(name: string, fn: IndexFunc<T>): void {
    const index = { fn, keys: new Map<string, Set<string>>() };
    this.#indices.set(name, index);
    for (const [key, obj] of this.#cache) this.#indexAdd(index, key, obj);
  }

  /** The cached objects whose index `name` has `value`. */
  byIndex(name: string, value: string): T[] {
    const keys = this.#index(name).keys.get(value);
    return keys ? [...keys].map((key) => this.#cache.get(key)!) : [];
  }

  /** Every value index `name` holds for at least one cached object. */
  indexValues(name: string): IterableIterator<string> {
    return this.#index(name).keys.keys();
  }

  #index(name: string) {
    const index = this.#indices.get(name);
    if (!index) throw new Error(`informer has no index ${name}`);
    return index;
  }

  /** Every cache write goes through here, so the indexes never disagree with the cache. */
  #store(key: string, obj: T | undefined): void {
    const old = this.#cache.get(key);
    for (const index of this.#indices.values()) {
      if (old) this.#indexRemove(index, key, old);
      if (obj) this.#indexAdd(index, key, obj);
    }
    if (obj) this.#cache.set(key, obj);
    else this.#cache.delete(key);
  }

  #indexAdd(index: { fn: IndexFunc<T>; keys: Map<string, Set<string>> }, key: string, obj: T): void {
    for (const value of index.fn(obj)) {
      const keys = index.keys.get(value) ?? new Set<string>();
      keys.add(key);
      index.keys.set(value, keys);
    }
  }

  #indexRemove(index: { fn: IndexFunc<T>; keys: Map<string, Set<string>> }, key: string, obj: T): void {
    for (const value of index.fn(obj)) {
      const keys = index.keys.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index.keys.delete(value);
    }
  }

  /** Starts every scope's loop; calling it again does nothing. */
  start(): void {
    if (this.#loops || this.#stop.signal.aborted) return;
    for (const scope of this.#scopes) scope.lastActivity = Date.now();
    this.#loops = this.#scopes.map((scope) => this.#run(scope));
  }

  /** Stops every watch and loop; resolves when no request of this informer is left open. */
  async stop(): Promise<void> {
    this.#stop.abort();
    for (const resolve of this.#syncWaiters.splice(0)) resolve();
    await Promise.all(this.#loops ?? []);
  }

  hasSynced(): boolean {
    return this.#scopes.every((s) => s.synced);
  }

  /** Resolves once every scope has listed (or the informer stops). */
  waitForSync(): Promise<void> {
    if (this.hasSynced() || this.#stop.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  /** The last sign of life (list, watch opened, event or bookmark) of the quietest scope, in ms since epoch. */
  lastEventAt(): number {
    return Math.min(...this.#scopes.map((s) => s.lastActivity));
  }

  /**
   * True when a scope has shown no sign of life for twice `staleAfterMs`: the watchdog already
   * restarted its watch once and that did not help. For /healthz.
   */
  isStale(now = Date.now()): boolean {
    return this.#loops !== undefined && now - this.lastEventAt() > 2 * this.#staleAfterMs;
  }

  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  list(): T[] {
    return [...this.#cache.values()];
  }

  stats(): Readonly<InformerStats> {
    return { ...this.#stats };
  }

  async #run(scope: Scope): Promise<void> {
    const signal = this.#stop.signal;
    let list: 'initial' | 'gone' | 'resync' | undefined = 'initial';
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (list) {
          await this.#relist(scope, list === 'resync', signal);
          list = undefined;
        }
        const started = Date.now();
        const end = await this.#watch(scope, signal);
        if (end === 'gone') this.#stats.goneRelists++;
        if (end === 'stale') this.#stats.staleRestarts++;
        if (end === 'gone' || end === 'resync') list = end;
        // A watch the server ends at once, again and again, must not become a hot loop.
        if (end === 'closed' && Date.now() - started < 1000) await this.#backoff(failures++, signal);
        else failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          this.#stats.goneRelists++;
          list = 'gone';
          continue;
        }
        this.#log?.warn(
          { namespace: scope.namespace, err: (err as Error).message },
          'list/watch failed; retrying',
        );
        await this.#backoff(failures++, signal);
      }
    }
  }

  #backoff(failures: number, signal: AbortSignal): Promise<void> {
    return sleep(jittered(exponentialDelayMs(failures, this.#backoffBaseMs, this.#backoffMaxMs)), signal);
  }

  /**
   * Lists the scope page by page and applies each page to the cache as it comes, so a relist of many
   * objects never holds a second copy of them all. An object whose resourceVersion did not move keeps
   * its cached copy (on a resync it is re-delivered as an update); what the complete list lacks is
   * deleted at the end.
   */
  async #relist(scope: Scope, resync: boolean, signal: AbortSignal): Promise<void> {
    let seen = new Set<string>();
    let resourceVersion = '';
    for await (const page of this.#source.list(scope.namespace, signal)) {
      if (signal.aborted) return;
      if (page.restarted) seen = new Set();
      for (const obj of page.items) {
        const key = objectKey(obj);
        seen.add(key);
        const old = this.#cache.get(key);
        if (!old) {
          this.#store(key, obj);
          this.#emit('onAdd', obj);
        } else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
          this.#store(key, obj);
          this.#emit('onUpdate', old, obj);
        } else if (resync) this.#emit('onUpdate', old, old);
      }
      resourceVersion = page.resourceVersion;
    }
    if (signal.aborted) return;
    this.#stats.lists++;
    for (const [key, obj] of this.#cache) {
      if (seen.has(key) || !this.#inScope(scope, obj)) continue;
      this.#store(key, undefined);
      this.#emit('onDelete', obj);
    }
    scope.resourceVersion = resourceVersion;
    scope.lastActivity = Date.now();
    scope.nextResyncAt = this.#resyncMs > 0 ? Date.now() + this.#resyncMs : Number.POSITIVE_INFINITY;
    if (!scope.synced) {
      scope.synced = true;
      if (this.hasSynced()) for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
  }

  /** One watch, until the server ends it, it fails, it goes silent, a resync is due, or stop. */
  async #watch(scope: Scope, stop: AbortSignal): Promise<WatchEnd> {
    // A stop that came while the list was being applied fires no abort event any more.
    if (stop.aborted) return 'stopped';
    const abort = new AbortController();
    let end: WatchEnd = 'closed';
    const finish = (why: WatchEnd) => {
      end = why;
      abort.abort();
    };
    const onStop = () => finish('stopped');
    stop.addEventListener('abort', onStop, { once: true });
    const tick = Math.max(50, Math.min(1000, this.#staleAfterMs / 4));
    const watchdog = setInterval(() => {
      const now = Date.now();
      if (now - scope.lastActivity > this.#staleAfterMs) {
        this.#log?.warn(
          { namespace: scope.namespace, silentMs: now - scope.lastActivity },
          'watch silent; restarting',
        );
        finish('stale');
      } else if (now >= scope.nextResyncAt) finish('resync');
    }, tick);
    try {
      const timeout = Math.round(this.#watchTimeoutSeconds * (1 + Math.random()));
      const events = await this.#source.watch(scope.namespace, scope.resourceVersion, timeout, abort.signal);
      this.#stats.watches++;
      scope.lastActivity = Date.now();
      for await (const event of events) {
        scope.lastActivity = Date.now();
        if (event.type === 'ERROR') {
          if (isGone(event.error)) return 'gone';
          throw event.error as KubeError;
        }
        scope.resourceVersion = event.object.metadata.resourceVersion ?? scope.resourceVersion;
        if (event.type !== 'BOOKMARK') this.#apply(event.type, event.object);
      }
      return end;
    } finally {
      clearInterval(watchdog);
      stop.removeEventListener('abort', onStop);
      abort.abort();
    }
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void {
    const key = objectKey(obj);
    const old = this.#cache.get(key);
    if (type === 'DELETED') {
      this.#store(key, undefined);
      this.#emit('onDelete', obj);
      return;
    }
    this.#store(key, obj);
    if (old) this.#emit('onUpdate', old, obj);
    else this.#emit('onAdd', obj);
  }

  #inScope(scope: Scope, obj: T): boolean {
    return scope.namespace === undefined || obj.metadata.namespace === scope.namespace;
  }

  #emit(kind: 'onAdd' | 'onDelete', obj: T): void;
  #emit(kind: 'onUpdate', old: T, obj: T): void;
  #emit(kind: keyof InformerHandlers<T>, a: T, b?: T): void {
    for (const handlers of this.#handlers) this.#call(handlers, kind, a, b);
  }

  #call(handlers: InformerHandlers<T>, kind: keyof InformerHandlers<T>, a: T, b?: T): void {
    try {
      if (kind === 'onUpdate') handlers.onUpdate?.(a, b!);
      else handlers[kind]?.(a);
    } catch (err) {
      this.#log?.error({ err: (err as Error).message, key: objectKey(b ?? a) }, `${kind} handler failed`);
    }
  }
}
