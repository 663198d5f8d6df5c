// What the last reconcile of a resource learned from the service, per generation. A reconcile woken by
// anything but a spec change (our own status write, an annotation, a stale cache) reuses it instead of
// calling the service again; once it is older than maxAgeMs (half the resync period, so every resync
// finds it old) the service is asked again. It also turns a refusal into one call per resync, not a loop.
export class OutcomeMemo<T> {
  readonly #entries = new Map<string, { generation: number; at: number; value: T }>();
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(maxAgeMs: number, now: () => number = Date.now) {
    this.#maxAgeMs = maxAgeMs;
    this.#now = now;
  }

  get(key: string, generation: number): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.generation !== generation || this.#now() - entry.at >= this.#maxAgeMs)
      return undefined;
    return entry.value;
  }

  set(key: string, generation: number, value: T): void {
    this.#entries.set(key, { generation, at: this.#now(), value });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
