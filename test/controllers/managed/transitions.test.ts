import { describe, expect, it } from 'vitest';
import {
  type ConditionSet,
  condition,
  outcomeConditions,
  toConditions,
} from '../../../src/controllers/managed/conditions.ts';
import { announcedOf, failureOf, transitionEvents } from '../../../src/controllers/managed/transitions.ts';

const at = (set: ConditionSet) => toConditions(set, undefined, 1, 'T');
const ready = at(outcomeConditions(undefined, 'ok'));
const stalled = at(outcomeConditions({ reason: 'Forbidden', message: 'no', stalled: true }, 'ok'));
const building = at({
  Ready: condition('False', 'Building', 'revision r2 is BUILDING'),
  Synced: condition('True', 'Synced', 'the service holds the spec'),
  Reconciling: condition('True', 'Progressing', 'revision r2 is BUILDING'),
  Stalled: condition('False', 'Progressing', 'no failure'),
});
const buildFailed = at({
  Ready: condition('False', 'BuildFailed', 'revision r2 is BUILD_FAILED'),
  Synced: condition('True', 'Synced', 'the service holds the spec'),
  Reconciling: condition('False', 'Idle', 'waiting for a spec change'),
  Stalled: condition('True', 'BuildFailed', 'revision r2 is BUILD_FAILED'),
});

describe('transitionEvents', () => {
  it('announces becoming Ready and becoming Stalled, once', () => {
    expect(transitionEvents(announcedOf(undefined), ready)).toEqual([
      { type: 'Normal', reason: 'Ready', message: 'ok' },
    ]);
    expect(transitionEvents(announcedOf(ready), ready)).toEqual([]);
    expect(transitionEvents(announcedOf(ready), stalled)).toEqual([
      { type: 'Warning', reason: 'Forbidden', message: 'no' },
    ]);
    expect(transitionEvents(announcedOf(stalled), stalled)).toEqual([]);
  });

  it('announces a new failure reason', () => {
    const other = at(outcomeConditions({ reason: 'InvalidSpec', message: 'bad', stalled: true }, 'ok'));
    expect(transitionEvents(announcedOf(stalled), other)).toEqual([
      { type: 'Warning', reason: 'InvalidSpec', message: 'bad' },
    ]);
  });

  it('gives a failed build one Warning, not one per condition that shows it', () => {
    expect(transitionEvents(announcedOf(building), buildFailed)).toEqual([
      { type: 'Warning', reason: 'BuildFailed', message: 'revision r2 is BUILD_FAILED' },
    ]);
  });

  it('says nothing of progress, and warns of a missing input that does not stall', () => {
    expect(transitionEvents(announcedOf(ready), building)).toEqual([]);
    const missing = at(
      outcomeConditions({ reason: 'SecretNotFound', message: 'Secret n/s not found', stalled: false }, 'ok'),
    );
    expect(transitionEvents(announcedOf(ready), missing)).toEqual([
      { type: 'Warning', reason: 'SecretNotFound', message: 'Secret n/s not found' },
    ]);
  });
});

describe('what was announced', () => {
  it('is what the Events follow: a failure already told is not told again from a stale view', () => {
    const told = announcedOf(buildFailed);
    expect(transitionEvents(told, buildFailed)).toEqual([]);
    expect(told).toEqual({ ready: false, failure: 'BuildFailed' });
  });
});

describe('failureOf', () => {
  it('finds Stalled first, then Synced=False, then a Ready=False that is not progress', () => {
    expect(failureOf(buildFailed)?.reason).toBe('BuildFailed');
    expect(failureOf(building)).toBeUndefined();
    expect(failureOf(ready)).toBeUndefined();
    expect(failureOf(undefined)).toBeUndefined();
  });
});
