import { describe, expect, it } from 'vitest';
import { outcomeConditions } from '../../src/controllers/conditions.ts';
import {
  nextStatus,
  previousObserved,
  statusPatch,
  statusUnchanged,
  transitionEvents,
} from '../../src/controllers/status.ts';

interface S {
  observedGeneration?: number;
  conditions?: ReturnType<typeof nextStatus>['conditions'];
  id?: string;
  version?: string;
}

const ready = outcomeConditions(undefined, 'ok');
const stalled = outcomeConditions({ reason: 'Forbidden', message: 'no', stalled: true }, 'ok');

describe('nextStatus', () => {
  it('takes the observed part whole, with the generation and conditions', () => {
    const prev: S = { id: 'a', version: '1' };
    const next = nextStatus<S>(prev, { id: 'b' }, ready, 4, '2026-01-01T00:00:00Z');
    expect(next.id).toBe('b');
    expect(next.version).toBeUndefined();
    expect(next.observedGeneration).toBe(4);
    expect(next.conditions!.map((c) => c.type)).toEqual(['Ready', 'Synced', 'Reconciling', 'Stalled']);
  });

  it('moves lastTransitionTime only when a status changes', () => {
    const first = nextStatus<S>(undefined, {}, ready, 1, 'T1');
    const same = nextStatus<S>(first, {}, ready, 2, 'T2');
    expect(same.conditions!.every((c) => c.lastTransitionTime === 'T1')).toBe(true);
    const changed = nextStatus<S>(first, {}, stalled, 2, 'T3');
    const at = Object.fromEntries(changed.conditions!.map((c) => [c.type, c.lastTransitionTime]));
    expect(at).toEqual({ Ready: 'T3', Synced: 'T3', Reconciling: 'T1', Stalled: 'T3' });
  });
});

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
    const s = nextStatus<S>(undefined, { id: 'a' }, ready, 1, 'T');
    expect(previousObserved<S>(s)).toEqual({ id: 'a' });
    expect(previousObserved<S>(undefined)).toEqual({});
  });
});

describe('transitionEvents', () => {
  const at = (set: typeof ready, prev?: S) => nextStatus<S>(prev, {}, set, 1, 'T').conditions!;

  it('announces becoming Ready and becoming Stalled, once', () => {
    expect(transitionEvents(undefined, at(ready))).toEqual([
      { type: 'Normal', reason: 'Ready', message: 'ok' },
    ]);
    expect(transitionEvents(at(ready), at(ready))).toEqual([]);
    expect(transitionEvents(at(ready), at(stalled))).toEqual([
      { type: 'Warning', reason: 'Forbidden', message: 'no' },
    ]);
    expect(transitionEvents(at(stalled), at(stalled))).toEqual([]);
  });

  it('announces a new stall reason', () => {
    const other = outcomeConditions({ reason: 'InvalidSpec', message: 'bad', stalled: true }, 'ok');
    expect(transitionEvents(at(stalled), at(other))).toEqual([
      { type: 'Warning', reason: 'InvalidSpec', message: 'bad' },
    ]);
  });
});
