import { describe, expect, it } from 'vitest';
import { previousObserved, statusPatch, statusUnchanged } from '../../../src/controllers/managed/status.ts';

describe('statusPatch and statusUnchanged', () => {
  it('removes with null what the next status lacks', () => {
    expect(statusPatch({ id: 'a', version: '1' }, { id: 'a' })).toEqual({ id: 'a', version: null });
    expect(statusPatch(undefined, { id: 'a' })).toEqual({ id: 'a' });
  });

  it('ignores undefined fields when comparing', () => {
    expect(statusUnchanged({ id: 'a' }, { id: 'a', version: undefined })).toBe(true);
    expect(statusUnchanged(undefined, {})).toBe(true);
    expect(statusUnchanged({ id: 'a' }, { id: 'b' })).toBe(false);
  });

  it('previousObserved drops generation and conditions', () => {
    expect(previousObserved({ id: 'a', observedGeneration: 1, conditions: [] })).toEqual({ id: 'a' });
    expect(previousObserved(undefined)).toEqual({});
  });
});
