// Operator-wide backoff for a rejected API key (DESIGN.md §3: 401 backs off operator-wide, re-reads the
// key, never a refusal of the spec). After the service answers 401, every call is refused locally, with
// a ServiceError of status 401 so that callers classify it like the real answer, and the gate alone asks
// the service again: one probe at a time, after a wait that doubles up to a cap. It reopens when a probe
// (or a call sent with a key other than the rejected one) is accepted, and then tells its listeners, so
// that resources held back are reconciled at once instead of after their own per-item backoff.
//
// A new key is noticed without a call: while closed, the key source is checked every keyCheckMs (a
// stat of the file), and a changed key is probed at once.
import type { Logger } from 'pino';
import { ServiceError } from './errors.ts';
import { type ApiKeySource, describeOrigin, FileKeySource } from './key-source.ts';

export interface AuthGateOptions {
  /** Wait before the first probe; doubled after each rejected probe (default 1 s). */
  probeDelayMs?: number;
  /** Cap of that wait (default 30 s): a key fixed on the service side is noticed within it. */
  maxProbeDelayMs?: number;
  /** While closed, how often the key source is checked for a new key (default 1 s). */
  keyCheckMs?: number;
  logger?: Pick<Logger, 'info' | 'warn'> | undefined;
  now?: () => number;
}

/** What one probe got: the HTTP status (undefined when no answer came) and the service's words. */
export interface ProbeAnswer {
  status: number | undefined;
  detail: string;
}

/** Sends one cheap request with `key` and reports the answer. */
export type Probe = (key: string) => Promise<ProbeAnswer>;

/**
 * Whether an answer proves the key was accepted: any answer the service gives after authenticating.
 * Not 5xx, 408 or 429, which a gateway or a rate limiter may give before the key is looked at.
 */
export function keyAccepted(status: number | undefined): boolean {
  if (status === undefined || status < 200 || status >= 500) return false;
  return status !== 401 && status !== 408 && status !== 429;
}

interface Closed {
  /** The rejected key (private to this object, never shown). */
  key: string;
  /** The service's words for the rejection, repeated in local refusals. */
  detail: string;
  /** Rejected probes since the gate closed. */
  failures: number;
  nextProbeAt: number;
}

export class AuthGate {
  readonly #source: ApiKeySource;
  readonly #probe: Probe;
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #keyCheckMs: number;
  readonly #logger: AuthGateOptions['logger'];
  readonly #now: () => number;
  readonly #listeners = new Set<() => void>();
  readonly #rejectListeners = new Set<() => void>();
  #closed: Closed | undefined;
  #probing = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  /** Probes sent since start, for the log. */
  #probes = 0;

  constructor(source: ApiKeySource, probe: Probe, options: AuthGateOptions = {}) {
    this.#source = source;
    this.#probe = probe;
    this.#baseMs = options.probeDelayMs ?? 1000;
    this.#maxMs = options.maxProbeDelayMs ?? 30_000;
    this.#keyCheckMs = options.keyCheckMs ?? 1000;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  get open(): boolean {
    return this.#closed === undefined;
  }

  /** Called when the gate reopens; returns a function that removes the listener. */
  onReopen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called when the gate closes (the service rejected the key); returns a function that removes it. */
  onReject(listener: () => void): () => void {
    this.#rejectListeners.add(listener);
    return () => this.#rejectListeners.delete(listener);
  }

  /**
   * What a check of the key sent past the gate with `key` got (e.g. a Workspace verifying its key): an
   * accepted key reopens the gate at once, a rejected one closes it. No answer says nothing of the key.
   */
  probed(key: string, answer: ProbeAnswer): void {
    if (answer.status === 401) this.#rejected(key, answer.detail);
    else if (keyAccepted(answer.status)) this.#reopen();
  }

  /** Throws the local refusal while the key is rejected; the call is then not sent. */
  check(endpoint: string, path: string): void {
    const closed = this.#closed;
    if (!closed) return;
    throw new ServiceError({
      status: 401,
      detail: closed.detail,
      endpoint,
      path,
      retryable: false,
      attempts: 0,
      keySource: this.#source.origin,
    });
  }

  /** What the answer to a call sent with `key` says about the key. Probes are not reported here. */
  observe(key: string, status: number | undefined, detail: string): void {
    if (status === 401) this.#rejected(key, detail);
    else if (this.#closed && keyAccepted(status) && key !== this.#closed.key) this.#reopen();
  }

  /** No more probes (the client is closing). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #rejected(key: string, detail: string): void {
    this.#source.reload(); // the file may have been fixed since this key was read
    const closed = this.#closed;
    if (!closed) {
      this.#closed = { key, detail, failures: 0, nextProbeAt: this.#now() + this.#baseMs };
      this.#logger?.warn(
        { keySource: describeOrigin(this.#source.origin), detail, ...this.#readError() },
        'the service rejected the API key; holding every call until it accepts one',
      );
      notify(this.#rejectListeners);
    } else if (key !== closed.key) {
      // A call with a newer key was rejected too: that one is now the key to replace.
      closed.key = key;
      closed.detail = detail;
    }
    this.#schedule();
  }

  #reopen(): void {
    if (!this.#closed) return;
    this.#closed = undefined;
    clearTimeout(this.#timer);
    this.#logger?.info(
      { keySource: describeOrigin(this.#source.origin), probes: this.#probes },
      'the service accepts the API key; calls resume',
    );
    notify(this.#listeners);
  }

  /** The next check: at the probe time, or sooner to look for a new key. */
  #schedule(): void {
    clearTimeout(this.#timer);
    const closed = this.#closed;
    if (!closed || this.#probing || this.#stopped) return;
    const due = this.#source.key() !== closed.key ? 0 : closed.nextProbeAt - this.#now();
    this.#timer = setTimeout(() => void this.#tick(), Math.max(0, Math.min(due, this.#keyCheckMs)));
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const closed = this.#closed;
    if (!closed || this.#probing || this.#stopped) return;
    const key = this.#source.key();
    if (key === closed.key && this.#now() < closed.nextProbeAt) return this.#schedule();
    this.#probing = true;
    this.#probes++;
    let answer: ProbeAnswer;
    try {
      answer = await this.#probe(key);
    } catch (err) {
      answer = { status: undefined, detail: (err as Error).message };
    } finally {
      this.#probing = false;
    }
    if (this.#closed !== closed) return this.#schedule(); // reopened (or closed anew) meanwhile
    if (keyAccepted(answer.status)) return this.#reopen();
    if (answer.status === 401) {
      closed.failures++;
      closed.key = key;
      closed.detail = answer.detail;
      this.#source.reload();
    }
    // No answer (network, 5xx): same wait again; the key is neither accepted nor rejected.
    closed.nextProbeAt = this.#now() + Math.min(this.#maxMs, this.#baseMs * 2 ** closed.failures);
    this.#schedule();
  }

  #readError(): { readError?: string } {
    const source = this.#source;
    return source instanceof FileKeySource && source.readError ? { readError: source.readError } : {};
  }
}

function notify(listeners: Set<() => void>): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // One listener's failure must not keep the others asleep.
    }
  }
}
