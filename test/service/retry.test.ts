import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  defaultRetryPolicy,
  isIdempotent,
  networkRetryable,
  networkTransient,
  parseRetryAfter,
  retryDelay,
  statusRetryable,
} from '../../src/service/retry.ts';

const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 10_000 };
const systemError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

describe('which calls are repeated', () => {
  it('treats GET, PUT, DELETE and PATCH as idempotent, POST not', () => {
    expect(['GET', 'PUT', 'DELETE', 'PATCH'].map(isIdempotent)).toEqual([true, true, true, true]);
    expect(isIdempotent('POST')).toBe(false);
  });

  it('repeats idempotent calls on 429, 502, 503 and 504 only', () => {
    for (const status of [429, 502, 503, 504]) expect(statusRetryable('GET', status)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 422, 500, 501])
      expect(statusRetryable('GET', status)).toBe(false);
  });

  it('repeats a POST after a 429 (refused before processing) but after no 5xx', () => {
    expect(statusRetryable('POST', 429)).toBe(true);
    for (const status of [502, 503, 504]) expect(statusRetryable('POST', status)).toBe(false);
  });

  it('repeats a POST only when the request was never sent', () => {
    expect(networkRetryable('POST', systemError('ECONNREFUSED'))).toBe(true);
    expect(networkRetryable('POST', systemError('UND_ERR_CONNECT_TIMEOUT'))).toBe(true);
    expect(networkRetryable('POST', systemError('ECONNRESET'))).toBe(false);
    expect(networkRetryable('POST', systemError('UND_ERR_HEADERS_TIMEOUT'))).toBe(false);
    expect(networkRetryable('GET', systemError('ECONNRESET'))).toBe(true);
    expect(networkRetryable('GET', systemError('UND_ERR_SOCKET'))).toBe(true);
  });

  it('finds the code on a wrapped cause and ignores unknown failures', () => {
    const wrapped = new Error('fetch failed', { cause: systemError('ECONNRESET') });
    expect(networkRetryable('DELETE', wrapped)).toBe(true);
    expect(networkTransient(new Error('something else'))).toBe(false);
    expect(networkRetryable('GET', new TypeError('bad'))).toBe(false);
  });
});

describe('how long to wait', () => {
  it('draws full jitter below an exponential ceiling capped at maxDelayMs', () => {
    expect(backoffDelay(policy, 1, () => 0.999)).toBe(99);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(200);
    expect(backoffDelay(policy, 10, () => 0.999)).toBe(999);
    expect(backoffDelay(policy, 2, () => 0)).toBe(0);
  });

  it('reads Retry-After as delta-seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter(['2', '9'])).toBe(2_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('waits at least the Retry-After, capped at maxDelayMs, and at least the backoff', () => {
    expect(retryDelay(policy, 1, 700, () => 0)).toBe(700);
    expect(retryDelay(policy, 1, 60_000, () => 0)).toBe(1_000);
    expect(retryDelay(policy, 2, undefined, () => 0.5)).toBe(100);
    // A Retry-After shorter than the backoff does not shorten it.
    expect(retryDelay(policy, 3, 0, () => 0.5)).toBe(200);
  });

  it('has defaults that end in bounded time', () => {
    expect(defaultRetryPolicy.maxAttempts).toBeGreaterThan(1);
    expect(defaultRetryPolicy.maxElapsedMs).toBeLessThanOrEqual(60_000);
  });
});
