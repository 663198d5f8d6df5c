import { describe, expect, it } from 'vitest';
import { exponentialDelayMs, jittered, reserveToken } from '../../src/runtime/backoff.ts';

describe('exponentialDelayMs', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([0, 1, 2, 3, 10].map((n) => exponentialDelayMs(n, 5, 1_000_000))).toEqual([5, 10, 20, 40, 5120]);
    expect(exponentialDelayMs(18, 5, 1_000_000)).toBe(1_000_000);
    expect(exponentialDelayMs(5000, 5, 1_000_000)).toBe(1_000_000);
  });
});

describe('jittered', () => {
  it('stays within [delay/2, delay]', () => {
    expect(jittered(1000, () => 0)).toBe(500);
    expect(jittered(1000, () => 0.999999)).toBeCloseTo(1000, 2);
  });
});

describe('reserveToken', () => {
  it('serves the burst at once, then spaces tokens at 1/qps', () => {
    let state = { tokens: 3, at: 0 };
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = reserveToken(state, 0, 10, 3);
      state = r.state;
      delays.push(r.delayMs);
    }
    expect(delays).toEqual([0, 0, 0, 100, 200]);
  });

  it('refills with time, never above the burst', () => {
    const r = reserveToken({ tokens: 0, at: 0 }, 60_000, 10, 3);
    expect(r.delayMs).toBe(0);
    expect(r.state.tokens).toBe(2);
  });
});
