import { describe, expect, it } from 'vitest';
import { OutcomeMemo } from '../../../src/controllers/managed/memo.ts';

describe('OutcomeMemo', () => {
  it('answers for the same generation until it is maxAgeMs old', () => {
    let now = 0;
    const memo = new OutcomeMemo<string>(1000, () => now);
    memo.set('k', 1, 'seen');
    expect(memo.get('k', 1)).toBe('seen');
    expect(memo.get('k', 2)).toBeUndefined();
    expect(memo.get('other', 1)).toBeUndefined();
    now = 999;
    expect(memo.get('k', 1)).toBe('seen');
    now = 1000;
    expect(memo.get('k', 1)).toBeUndefined();
  });

  it('forgets a deleted key', () => {
    const memo = new OutcomeMemo<string>(1000);
    memo.set('k', 1, 'seen');
    memo.delete('k');
    expect(memo.get('k', 1)).toBeUndefined();
  });
});
