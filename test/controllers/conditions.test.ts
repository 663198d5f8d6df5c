import { describe, expect, it } from 'vitest';
import { outcomeConditions, refusal } from '../../src/controllers/conditions.ts';
import { ServiceError } from '../../src/service/errors.ts';

const error = (status: number | undefined, retryable = false) =>
  new ServiceError({ status, detail: 'the words', endpoint: 'POST /x', path: '/x', retryable, attempts: 1 });

describe('outcomeConditions', () => {
  it('is Ready with nothing in flight when there is no problem', () => {
    const set = outcomeConditions(undefined, 'bound');
    expect(set.Ready).toEqual({ status: 'True', reason: 'Ready', message: 'bound' });
    expect(set.Synced.status).toBe('True');
    expect(set.Reconciling.status).toBe('False');
    expect(set.Stalled.status).toBe('False');
  });

  it('is Stalled, not Reconciling, for a stalled problem', () => {
    const set = outcomeConditions({ reason: 'Forbidden', message: 'no', stalled: true }, 'bound');
    expect(set.Ready).toEqual({ status: 'False', reason: 'Forbidden', message: 'no' });
    expect(set.Stalled).toEqual({ status: 'True', reason: 'Forbidden', message: 'no' });
    expect(set.Reconciling.status).toBe('False');
  });

  it('is Reconciling, not Stalled, for a problem that may go away', () => {
    const set = outcomeConditions({ reason: 'NotFound', message: 'not yet', stalled: false }, 'bound');
    expect(set.Ready.status).toBe('False');
    expect(set.Reconciling).toEqual({ status: 'True', reason: 'NotFound', message: 'not yet' });
    expect(set.Stalled.status).toBe('False');
  });
});

describe('refusal', () => {
  it('maps definite 4xx answers to stalled problems in the service words', () => {
    expect(refusal(error(403), 'not allowed')).toEqual({
      reason: 'Forbidden',
      message: 'not allowed: the words',
      stalled: true,
    });
    expect(refusal(error(404))).toMatchObject({ reason: 'NotFound', message: 'the words', stalled: true });
    expect(refusal(error(422))).toMatchObject({ reason: 'InvalidSpec', stalled: true });
  });

  it('throws what a retry may fix: 5xx, rate limits, network errors, a bad key, other errors', () => {
    for (const err of [error(500), error(503, true), error(429, true), error(undefined, true), error(401)])
      expect(() => refusal(err)).toThrow(err);
    expect(() => refusal(new Error('boom'))).toThrow('boom');
  });
});
