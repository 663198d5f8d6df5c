import { describe, expect, it } from 'vitest';
import { observedConditions, outcomeConditions } from '../../../src/controllers/managed/conditions.ts';

describe('observedConditions', () => {
  it('says Synced Observing, naming what is mirrored, and keeps Ready, Reconciling and Stalled', () => {
    const managed = outcomeConditions(undefined, 'listener l1 is registered');
    const observed = observedConditions(managed, 'listener l1');
    expect(observed.Synced).toMatchObject({ status: 'True', reason: 'Observing' });
    expect(observed.Synced.message).toContain('mirrors listener l1');
    expect(observed.Synced.message).toContain('spec.managementPolicy: Observe');
    expect({ ...observed, Synced: managed.Synced }).toEqual(managed);
  });

  it('keeps a Synced that says what is wrong (a service error, a missing object)', () => {
    const trouble = outcomeConditions(
      { reason: 'ServiceError', message: 'the service answered 503', stalled: false },
      'ready',
    );
    expect(observedConditions(trouble, 'listener l1')).toEqual(trouble);
  });
});
