// The batched observer (DESIGN.md §3): the interface has no GET of one deployment, but
// `GET /v2/deployments?deployment_ids=…` reads up to 100 at once. Every read of a deployment goes
// through here: concurrent reads are coalesced into one call per 100 ids, every live id (one a resource
// refers to now) is refreshed once per resync period, and the owners of ids whose state changed are
// woken. What it holds is derived from the live ids at each refresh: an id no resource refers to any
// more is dropped, so idle cost follows what exists, not what once existed. An item of the answer that
// breaks the contract hides none of the others: its id's reads fail with its contract error, never "gone".
import type { ListedPage, ServiceClient } from '../../service/client.ts';
import type { ServiceContractError } from '../../service/errors.ts';
import type { Deployment } from '../../service/wire.ts';

export const batchSize = 100;

/** What one read says of an id: the deployment, null (the service does not have it), or an unreadable item. */
export type Sighting = { deployment: Deployment | null } | { error: ServiceContractError };

type Entry = Sighting & { at: number };

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

/** The fields whose change is worth a reconcile (an unreadable item's index moves with its neighbours). */
function fingerprint(entry: Sighting | undefined): string {
  if (!entry) return 'gone';
  if ('error' in entry) return 'unreadable';
  const d = entry.deployment;
  return d ? `${d.updated_at}|${d.status}|${d.latest_revision_id}|${d.active_revision_id}` : 'gone';
}

/**
 * What one batched answer says of each id asked for. An id whose item broke the contract gets that
 * item's error. An item left out whose id cannot be told (none, or one not asked for) may be any id
 * the answer lacks: those get its error too, since calling them gone would make their owners create
 * the deployment a second time.
 */
export function sightings(ids: readonly string[], page: ListedPage<Deployment>): Map<string, Sighting> {
  const asked = new Set(ids);
  const found = new Map(page.resources.map((d) => [d.id, d]));
  const unreadable = new Map<string, ServiceContractError>();
  for (const item of page.rejected)
    if (item.id !== undefined && asked.has(item.id)) unreadable.set(item.id, item.error);
  const untold = page.rejected.find((item) => item.id === undefined || !asked.has(item.id));
  const out = new Map<string, Sighting>();
  for (const id of ids) {
    const deployment = found.get(id);
    const error = deployment ? undefined : (unreadable.get(id) ?? untold?.error);
    out.set(id, error ? { error } : { deployment: deployment ?? null });
  }
  return out;
}

/** A cached sighting as a read's answer. */
const settle = (entry: Sighting | undefined, w: Waiter): void => {
  if (entry && 'error' in entry) w.reject(entry.error);
  else w.resolve(entry?.deployment ?? null);
};

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

  /**
   * The deployment (null: the service does not have it), read at most `maxAgeMs` ago. Rejects with a
   * ServiceContractError naming the item's path when the service's item for this id breaks the contract.
   */
  get(id: string, maxAgeMs: number): Promise<Deployment | null> {
    const entry = this.#cache.get(id);
    if (entry && this.#now() - entry.at <= maxAgeMs)
      return new Promise((resolve, reject) => settle(entry, { resolve, reject }));
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
      const before = new Map(chunk.map((id) => [id, fingerprint(this.#cache.get(id))]));
      try {
        await this.#read(chunk);
      } catch {
        continue; // the next period tries again; reconciles that need data read for themselves
      }
      for (const id of chunk) {
        if (fingerprint(this.#cache.get(id)) !== before.get(id)) this.#options.onChange(id);
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
            for (const id of chunk) for (const w of waiting.get(id) ?? []) settle(this.#cache.get(id), w);
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
    for (const [id, sighting] of sightings(ids, page)) this.#cache.set(id, { ...sighting, at });
  }
}
