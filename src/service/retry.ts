// When the client may send a request again, and how long it waits first. Pure functions.

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  /** Cap of one wait, also of a Retry-After the service asks for. */
  maxDelayMs: number;
  /** No attempt starts, and no attempt runs, past this time after the first one started. */
  maxElapsedMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxElapsedMs: 60_000,
};

/** Statuses that say "not now" rather than "not this": overload and gateway trouble. */
const transientStatuses: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Network failures after which the request may or may not have reached the service: resets, timeouts,
 * a socket closed mid-response. Safe to repeat only for idempotent calls.
 */
const ambiguousNetworkCodes: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_CLOSED',
]);

/**
 * Network failures that happen before a connection exists: the request was never sent, so nothing
 * was processed and even a POST may be sent again.
 */
const unsentNetworkCodes: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

/**
 * GET, PUT and DELETE are idempotent by HTTP semantics. PATCH is idempotent on this service too: every
 * PATCH body sets absolute values (labels, configs, secret lists — no increments or appends), so sending
 * it twice leaves the same state as sending it once. POST creates, so it is not.
 */
export function isIdempotent(method: string): boolean {
  return method !== 'POST';
}

/** Whether a status is transient at all (trying later may help), whatever the method. */
export function statusTransient(status: number): boolean {
  return transientStatuses.has(status);
}

/** Whether a response status is worth another attempt now, for this method. */
export function statusRetryable(method: string, status: number): boolean {
  if (!transientStatuses.has(status)) return false;
  // A 429 is refused before it is processed (RFC 6585), so a POST that got one created nothing.
  // Any 5xx may come after the service acted (a gateway timing out on a slow create), so a POST is
  // not repeated: it could create a second deployment or connection.
  return isIdempotent(method) || status === 429;
}

/** The code of a network error (Node's `code`, also looked up on `cause`), if any. */
export function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (ambiguousNetworkCodes.has(code) || unsentNetworkCodes.has(code))) {
      return code;
    }
  }
  return undefined;
}

/** Whether a network failure is transient at all (trying later may help). */
export function networkTransient(error: unknown): boolean {
  return networkCode(error) !== undefined;
}

/** Whether a network failure may be retried now for this method. */
export function networkRetryable(method: string, error: unknown): boolean {
  const code = networkCode(error);
  if (code === undefined) return false;
  return isIdempotent(method) || unsentNetworkCodes.has(code);
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base·2^(retry-1))]. `retry` counts from 1. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined if absent or bad. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (from 1): at least the service's Retry-After (capped at
 * maxDelayMs), and never less than the jittered backoff, so a `Retry-After: 0` cannot make a hot loop.
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const backoff = backoffDelay(policy, retry, random);
  if (retryAfterMs === undefined) return backoff;
  return Math.max(Math.min(retryAfterMs, policy.maxDelayMs), backoff);
}
