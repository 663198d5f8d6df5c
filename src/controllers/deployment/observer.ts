// The batched observer (DESIGN.md §3): the interface has no GET of one deployment, but
// `GET /v2/deployments?deployment_ids=…` reads up to 100 at once. Every read of a deployment goes
// through here: concurrent reads are coalesced into one call per 100 ids, every live id (one a resource
// refers to now) is refreshed once per resync period, and the owners of ids whose state changed are
// woken. What it holds is derived from the live ids at each refresh: an id no resource refers to any
// more is dropped, so idle cost follows what exists, not what once existed.
import type { ServiceClient } from '../../service/client.ts';
import type { Deployment } from '../../service/wire.ts';

export const batchSize = 100;

interface Entry {
  deployment: Deployment | null;
  at: number;
}

interface Waiter {
  resolve(d: Deployment | null): void;
  reject(err: unknown): void;
}

export interface ObserverOptions {
  resyncMs: number;
  /** Called with each id whose observed state changed in a periodic refresh. */
  onChange(id: string): void;
  /**
   * Every id a resource refers to now. The periodic refresh reads exactly these; a read that has room
   * left in its batch takes along ids never read yet, so a fresh start reads N deployments in ⌈N/100⌉
   * calls rather than one call per few reconciles.
   */
  liveIds: () => Iterable<string>;
  /** Called when a periodic refresh has finished, with the number of ids it read (for metrics). */
  onRefresh?: (ids: number) => void;
  now?: () => number;
}

/** The fields whose change is worth a reconcile. */
const fingerprint = (d: Deployment | null) =>
  d ? `${d.updated_at}|${d.status}|${d.latest_revision_id}|${d.active_revision_id}` : 'gone';

export class DeploymentObserver {
  readonly #client: ServiceClient;
  readonly #options: ObserverOptions;
  readonly #now: () => number;
  readonly #cache = new Map<string, Entry>();
  #waiting = new Map<string, Waiter[]>();
  #flushScheduled = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(client: ServiceClient, options: ObserverOptions) {
    this.#client = client;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The deployment (null: the service does not have it), read at most `maxAgeMs` ago. */
  get(id: string, maxAgeMs: number): Promise<Deployment | null> {
    const entry = this.#cache.get(id);
    if (entry && this.#now() - entry.at <= maxAgeMs) return Promise.resolve(entry.deployment);
    return new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(id) ?? [];
      waiters.push({ resolve, reject });
      this.#waiting.set(id, waiters);
      this.#scheduleFlush();
    });
  }

  /** What a create or patch answered is the freshest observation there is. */
  record(d: Deployment): void {
    this.#cache.set(d.id, { deployment: d, at: this.#now() });
  }

  forget(id: string): void {
    this.#cache.delete(id);
  }

  start(): void {
    const tick = () => {
      // ±10 % jitter, so many operators do not refresh in step.
      this.#timer = setTimeout(
        () => void this.refreshAll().finally(tick),
        this.#options.resyncMs * (0.9 + Math.random() * 0.2),
      );
      this.#timer.unref();
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  /** Re-reads every live id, ⌈N/100⌉ calls, and reports the ids whose state changed. */
  async refreshAll(): Promise<void> {
    const live = new Set(this.#options.liveIds());
    for (const id of this.#cache.keys()) if (!live.has(id)) this.#cache.delete(id);
    const ids = [...live];
    for (let i = 0; i < ids.length; i += batchSize) {
      const chunk = ids.slice(i, i + batchSize);
      const before = new Map(chunk.map((id) => [id, fingerprint(this.#cache.get(id)?.deployment ?? null)]));
      try {
        await this.#read(chunk);
      } catch {
        continue; // the next period tries again; reconciles that need data read for themselves
      }
      for (const id of chunk) {
        if (fingerprint(this.#cache.get(id)?.deployment ?? null) !== before.get(id))
          this.#options.onChange(id);
      }
    }
    this.#options.onRefresh?.(ids.length);
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // One macrotask of patience gathers every reconcile that asks at about the same time.
    setImmediate(() => {
      this.#flushScheduled = false;
      const waiting = this.#waiting;
      this.#waiting = new Map();
      const ids = [...waiting.keys()];
      ids.push(...this.#unread(waiting, batchSize - (ids.length % batchSize)));
      for (let i = 0; i < ids.length; i += batchSize) {
        const chunk = ids.slice(i, i + batchSize);
        this.#read(chunk).then(
          () => {
            for (const id of chunk)
              for (const w of waiting.get(id) ?? []) w.resolve(this.#cache.get(id)?.deployment ?? null);
          },
          (err) => {
            for (const id of chunk) for (const w of waiting.get(id) ?? []) w.reject(err);
          },
        );
      }
    });
  }

  /** Up to `room` known ids neither cached nor asked for (room = batchSize: the batch is full). */
  #unread(waiting: Map<string, Waiter[]>, room: number): string[] {
    const extra: string[] = [];
    if (room === batchSize) return extra;
    for (const id of this.#options.liveIds()) {
      if (extra.length === room) break;
      if (!this.#cache.has(id) && !waiting.has(id) && !extra.includes(id)) extra.push(id);
    }
    return extra;
  }

  async #read(ids: string[]): Promise<void> {
    const page = await this.#client.listDeployments({ deployment_ids: ids, limit: batchSize });
    const at = this.#now();
    const found = new Map(page.resources.map((d) => [d.id, d]));
    for (const id of ids) this.#cache.set(id, { deployment: found.get(id) ?? null, at });
  }
}
