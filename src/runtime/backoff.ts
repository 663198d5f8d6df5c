// Backoff and rate-limit arithmetic as pure functions; the stateful wrappers live in workqueue.ts.

/** base·2^failures, capped at max (client-go's ItemExponentialFailureRateLimiter). */
export function exponentialDelayMs(failures: number, baseMs: number, maxMs: number): number {
  const delay = baseMs * 2 ** failures;
  return Number.isFinite(delay) ? Math.min(delay, maxMs) : maxMs;
}

/** Full jitter on top of a delay: a value in [delay/2, delay], so restarts of many clients spread out. */
export function jittered(delayMs: number, random: () => number = Math.random): number {
  return delayMs / 2 + random() * (delayMs / 2);
}

export interface TokenBucketState {
  /** May go negative: a reservation taken ahead of refill, like golang.org/x/time/rate. */
  tokens: number;
  at: number;
}

/**
 * Takes one token from a bucket refilled at `qps` up to `burst`; returns the new state and how
 * long the caller must wait before its token is really there.
 */
export function reserveToken(
  state: TokenBucketState,
  now: number,
  qps: number,
  burst: number,
): { state: TokenBucketState; delayMs: number } {
  const refilled = Math.min(burst, state.tokens + (Math.max(0, now - state.at) * qps) / 1000);
  const tokens = refilled - 1;
  const delayMs = tokens >= 0 ? 0 : (-tokens * 1000) / qps;
  return { state: { tokens, at: Math.max(now, state.at) }, delayMs };
}
