// A deduplicating, delaying, rate-limited work queue with the semantics of client-go's workqueue:
// - a key waiting is queued once (`dirty`);
// - a key being processed is never handed to a second worker (`processing`); re-added meanwhile,
//   it is queued again when the worker calls done();
// - addAfter keeps the earliest ready time per key;
// - addRateLimited waits max(per-key exponential backoff, global token bucket); forget resets the key.
import { exponentialDelayMs, reserveToken, type TokenBucketState } from './backoff.ts';
import { type Clock, realClock } from './clock.ts';

export interface RateLimiterOptions {
  /** First retry delay (default 5 ms). */
  baseDelayMs?: number;
  /** Cap of the per-key delay (default 1000 s). */
  maxDelayMs?: number;
  /** Global retry rate (default 10/s) and burst (default 100). */
  qps?: number;
  burst?: number;
}

/** Per-key exponential backoff combined with a global token bucket; the larger delay wins. */
export class RateLimiter {
  readonly #failures = new Map<string, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #bucket: TokenBucketState;

  constructor(options: RateLimiterOptions = {}, clock: Clock = realClock) {
    this.#baseMs = options.baseDelayMs ?? 5;
    this.#maxMs = options.maxDelayMs ?? 1_000_000;
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#clock = clock;
    this.#bucket = { tokens: this.#burst, at: clock.now() };
  }

  /** The delay before the next retry of `key`; counts one more failure. */
  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const reservation = reserveToken(this.#bucket, this.#clock.now(), this.#qps, this.#burst);
    this.#bucket = reservation.state;
    return Math.max(exponentialDelayMs(failures, this.#baseMs, this.#maxMs), reservation.delayMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** Observations for the workqueue_* metrics; every hook is optional. */
export interface QueueMetrics {
  depth?(n: number): void;
  added?(): void;
  retried?(): void;
  /** Seconds a key waited in the queue before a worker took it. */
  queueLatency?(seconds: number): void;
  /** Seconds a worker spent on a key. */
  workDuration?(seconds: number): void;
}

export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: QueueMetrics;
}

interface Waiting {
  key: string;
  readyAt: number;
}

export class WorkQueue {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #metrics: QueueMetrics;
  /** Ready keys in FIFO order (a Set keeps insertion order and dedupes). */
  readonly #queue = new Set<string>();
  /** Keys that need processing: queued, or re-added while processing. */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #enqueuedAt = new Map<string, number>();
  /** Delayed keys: the authoritative ready time per key, and a min-heap (with stale entries skipped). */
  readonly #waiting = new Map<string, number>();
  readonly #heap: Waiting[] = [];
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;
  readonly #getters: Array<(key: string | undefined) => void> = [];
  #shuttingDown = false;
  readonly #idle: Array<() => void> = [];

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#limiter = options.rateLimiter ?? new RateLimiter({}, this.#clock);
    this.#metrics = options.metrics ?? {};
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics.added?.();
    this.#dirty.add(key);
    this.#enqueuedAt.set(key, this.#clock.now());
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  /** Adds `key` after `ms`; a key already waiting keeps the earlier of the two times. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.#clock.now() + ms;
    const current = this.#waiting.get(key);
    if (current !== undefined && current <= readyAt) return;
    this.#waiting.set(key, readyAt);
    heapPush(this.#heap, { key, readyAt });
    this.#schedule();
  }

  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#metrics.retried?.();
    this.addAfter(key, this.#limiter.when(key));
  }

  /** The key succeeded: its backoff starts over. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  /** Keys ready for a worker. */
  len(): number {
    return this.#queue.size;
  }

  /** Keys waiting for their delay to pass. */
  delayed(): number {
    return this.#waiting.size;
  }

  isProcessing(key: string): boolean {
    return this.#processing.has(key);
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** The next key to process, or undefined once the queue shuts down. Call done(key) when finished. */
  get(): Promise<string | undefined> {
    const key = this.#pop();
    if (key !== undefined || this.#shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
    if (this.#processing.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /**
   * Runs `concurrency` workers until shutdown. A handler that throws has its key retried with
   * backoff (callers normally handle errors themselves; this keeps a worker from dying).
   */
  async run(concurrency: number, handler: (key: string) => Promise<void>): Promise<void> {
    const worker = async () => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        const started = this.#clock.now();
        try {
          await handler(key);
        } catch {
          this.addRateLimited(key);
        } finally {
          this.#metrics.workDuration?.((this.#clock.now() - started) / 1000);
          this.done(key);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /**
   * Stops handing out keys (queued and delayed ones are dropped), then resolves once every key
   * in flight is done.
   */
  shutdown(): Promise<void> {
    this.#shuttingDown = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting.clear();
    this.#heap.length = 0;
    this.#queue.clear();
    this.#dirty.clear();
    this.#metrics.depth?.(0);
    for (const resolve of this.#getters.splice(0)) resolve(undefined);
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #push(key: string): void {
    const getter = this.#getters.shift();
    if (getter) {
      this.#take(key);
      getter(key);
      return;
    }
    this.#queue.add(key);
    this.#metrics.depth?.(this.#queue.size);
  }

  #pop(): string | undefined {
    const next = this.#queue.values().next();
    if (next.done) return undefined;
    this.#queue.delete(next.value);
    this.#metrics.depth?.(this.#queue.size);
    this.#take(next.value);
    return next.value;
  }

  #take(key: string): void {
    this.#processing.add(key);
    this.#dirty.delete(key);
    const at = this.#enqueuedAt.get(key);
    this.#enqueuedAt.delete(key);
    if (at !== undefined) this.#metrics.queueLatency?.((this.#clock.now() - at) / 1000);
  }

  /** Keeps one timer, set for the earliest ready time. */
  #schedule(): void {
    const top = this.#heap[0];
    if (top === undefined || top.readyAt >= this.#timerAt) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = top.readyAt;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), Math.max(0, top.readyAt - this.#clock.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    for (let top = this.#heap[0]; top !== undefined && top.readyAt <= now; top = this.#heap[0]) {
      heapPop(this.#heap);
      if (this.#waiting.get(top.key) !== top.readyAt) continue; // superseded by an earlier addAfter
      this.#waiting.delete(top.key);
      this.add(top.key);
    }
    this.#schedule();
  }
}

function heapPush(heap: Waiting[], item: Waiting): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]!.readyAt <= heap[i]!.readyAt) break;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

function heapPop(heap: Waiting[]): void {
  const last = heap.pop();
  if (last === undefined || heap.length === 0) return;
  heap[0] = last;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let min = i;
    if (l < heap.length && heap[l]!.readyAt < heap[min]!.readyAt) min = l;
    if (r < heap.length && heap[r]!.readyAt < heap[min]!.readyAt) min = r;
    if (min === i) return;
    [heap[min], heap[i]] = [heap[i]!, heap[min]!];
    i = min;
  }
}
