// What the last reconcile of a resource learned from the service, per version of what it asked (the
// generation, or a digest of the request when inputs outside the spec count too). A reconcile woken by
// anything but a change of that version (our own status write, an annotation, a stale cache) reuses it
// instead of calling the service again; once it is older than maxAgeMs (e.g. half the resync period, so
// every resync finds it old) the service is asked again. It turns a refusal into one call per period,
// not a loop.
export class OutcomeMemo<T> {
  readonly #entries = new Map<string, { version: number | string; at: number; value: T }>();
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(maxAgeMs: number, now: () => number = Date.now) {
    this.#maxAgeMs = maxAgeMs;
    this.#now = now;
  }

  get(key: string, version: number | string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.version !== version || this.#now() - entry.at >= this.#maxAgeMs) return undefined;
    return entry.value;
  }

  set(key: string, version: number | string, value: T): void {
    this.#entries.set(key, { version, at: this.#now(), value });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
