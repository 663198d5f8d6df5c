import { describe, expect, it } from 'vitest';
import { microTime } from '../../src/runtime/leader.ts';

describe('microTime', () => {
  it('has the six fractional digits the apiserver parses', () => {
    expect(microTime(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05.678000Z');
  });
});
