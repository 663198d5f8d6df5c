// Wiring of one controller: informers → key mapping → work queue → reconcile.
//
// Every informer event becomes keys of the primary resource: the primary's own informer maps an
// object to its own key; a secondary one (e.g. Secrets) maps to the primaries that depend on it,
// through a function the caller supplies. Reconcile is level-triggered: it gets only the key.
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { sleep } from './clock.ts';
import type { Informer } from './informer.ts';
import { type KubeObject, objectKey } from './kube-objects.ts';
import { reconcileMetrics, workqueueMetrics } from './metrics.ts';
import { RateLimiter, type RateLimiterOptions, WorkQueue } from './workqueue.ts';

export interface ReconcileResult {
  /** Reconcile again after this long even if nothing changes (e.g. polling a build in flight). */
  requeueAfterMs?: number;
}

// biome-ignore lint/suspicious/noConfusingVoidType: most reconciles return nothing; that must type-check.
export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

/** An informer and how its objects map to primary keys. */
export interface Watched {
  informer: Informer<KubeObject>;
  map: (obj: KubeObject) => string[];
}

/** Watches the primary resource: each object is its own key. */
export function watchPrimary<T extends KubeObject>(informer: Informer<T>): Watched {
  return { informer: informer as unknown as Informer<KubeObject>, map: (obj) => [objectKey(obj)] };
}

/** Watches a secondary resource: `map` returns the primary keys that depend on an object. */
export function watchSecondary<T extends KubeObject>(
  informer: Informer<T>,
  map: (obj: T) => string[],
): Watched {
  return { informer: informer as unknown as Informer<KubeObject>, map: map as (obj: KubeObject) => string[] };
}

export interface ControllerOptions {
  name: string;
  watches: Watched[];
  reconcile: Reconcile;
  /** Workers; one key is never reconciled by two at once (default 1). */
  concurrency?: number;
  rateLimiter?: RateLimiterOptions;
  registry?: Registry;
  logger?: Logger;
  /** How long stop() lets in-flight reconciles finish before aborting their signal (default 30 s). */
  shutdownTimeoutMs?: number;
}

export class Controller {
  readonly name: string;
  readonly #options: ControllerOptions;
  readonly #queue: WorkQueue;
  readonly #metrics: ReturnType<typeof reconcileMetrics>;
  readonly #log: Logger | undefined;
  readonly #abort = new AbortController();
  #workers: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#options = options;
    const registry = options.registry ?? new Registry();
    this.#queue = new WorkQueue({
      rateLimiter: new RateLimiter(options.rateLimiter),
      metrics: workqueueMetrics(registry, options.name),
    });
    this.#metrics = reconcileMetrics(registry, options.name);
    this.#log = options.logger?.child({ controller: options.name });
    for (const { informer, map } of options.watches) {
      const enqueue = (...objs: KubeObject[]) => {
        for (const key of new Set(objs.flatMap((obj) => this.#map(map, obj)))) this.#queue.add(key);
      };
      informer.addHandlers({
        onAdd: (obj) => enqueue(obj),
        onUpdate: (old, obj) => enqueue(old, obj),
        onDelete: (obj) => enqueue(obj),
      });
    }
  }

  /** Starts the informers, waits until every cache has synced, then starts the workers. */
  async start(): Promise<void> {
    if (this.#workers || this.#stopping) return;
    const informers = this.#options.watches.map((w) => w.informer);
    for (const informer of informers) informer.start();
    await Promise.all(informers.map((informer) => informer.waitForSync()));
    if (this.#stopping) return;
    this.#log?.info({ concurrency: this.#options.concurrency ?? 1 }, 'caches synced; starting workers');
    this.#workers = this.#queue.run(this.#options.concurrency ?? 1, (key) => this.#process(key));
  }

  /** Caches synced and workers running: for /readyz. */
  ready(): boolean {
    return this.#workers !== undefined && !this.#stopping;
  }

  informers(): Informer<KubeObject>[] {
    return this.#options.watches.map((w) => w.informer);
  }

  /** Enqueues a key from outside the informers (e.g. an observer of an external system). */
  enqueue(key: string, afterMs = 0): void {
    this.#queue.addAfter(key, afterMs);
  }

  /**
   * Stops the informers, lets in-flight reconciles finish (aborting their signal after the
   * shutdown timeout), and resolves when no worker is left.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    await Promise.all(this.informers().map((informer) => informer.stop()));
    const drained = this.#queue.shutdown();
    const timeoutMs = this.#options.shutdownTimeoutMs ?? 30_000;
    const deadline = new AbortController();
    const finished = await Promise.race([
      drained.then(() => true),
      sleep(timeoutMs, deadline.signal).then(() => false),
    ]);
    deadline.abort(); // no timer left behind to hold the process
    if (!finished) {
      this.#log?.warn({ timeoutMs }, 'reconciles still running at the shutdown deadline; aborting them');
      this.#abort.abort();
      await drained;
    }
    await this.#workers;
    this.#log?.info('stopped');
  }

  #map(map: (obj: KubeObject) => string[], obj: KubeObject): string[] {
    try {
      return map(obj);
    } catch (err) {
      this.#log?.error({ err: (err as Error).message, object: objectKey(obj) }, 'key mapping failed');
      return [];
    }
  }

  async #process(key: string): Promise<void> {
    const done = this.#metrics.start();
    try {
      const result = await this.#options.reconcile(key, this.#abort.signal);
      this.#queue.forget(key);
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.#queue.addAfter(key, result.requeueAfterMs);
        this.#metrics.result('requeue_after');
      } else {
        this.#metrics.result('success');
      }
    } catch (err) {
      this.#metrics.result('error');
      this.#queue.addRateLimited(key);
      this.#log?.error(
        { key, err: err instanceof Error ? err.message : String(err), retries: this.#queue.numRequeues(key) },
        'reconcile failed; retrying with backoff',
      );
    } finally {
      done();
    }
  }
}

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT, then exits 0 (1 if it failed). A second
 * signal, or `timeoutMs` passing, exits 1 at once. Returns a function that removes the handlers.
 */
export function onShutdownSignal(
  shutdown: () => Promise<void>,
  options: { logger?: Logger; timeoutMs?: number; exit?: (code: number) => void } = {},
): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started = false;
  const handler = (signal: NodeJS.Signals) => {
    if (started) {
      options.logger?.warn({ signal }, 'second signal; exiting now');
      exit(1);
      return;
    }
    started = true;
    options.logger?.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      options.logger?.error('shutdown deadline passed; exiting');
      exit(1);
    }, options.timeoutMs ?? 60_000);
    shutdown().then(
      () => {
        clearTimeout(deadline);
        exit(0);
      },
      (err: unknown) => {
        clearTimeout(deadline);
        options.logger?.error({ err: (err as Error).message }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
