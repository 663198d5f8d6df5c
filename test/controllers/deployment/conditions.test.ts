import { describe, expect, it } from 'vitest';
import { computeConditions } from '../../../src/controllers/deployment/conditions.ts';
import { pausedConditions, toConditions } from '../../../src/controllers/managed/conditions.ts';
import type { Deployment } from '../../../src/service/wire.ts';

const d = (over: Partial<Deployment>): Deployment =>
  ({ id: 'd', status: 'READY', latest_revision_id: 'r2', active_revision_id: 'r2', ...over }) as Deployment;
const summary = (set: ReturnType<typeof computeConditions>) =>
  Object.fromEntries(Object.entries(set).map(([k, v]) => [k, `${v.status}/${v.reason}`]));

describe('computeConditions', () => {
  it('is Ready only when the service is READY and the latest revision is the active one', () => {
    expect(summary(computeConditions({ deployment: d({}) }, undefined))).toEqual({
      Ready: 'True/Ready',
      Synced: 'True/Synced',
      Reconciling: 'False/Idle',
      Stalled: 'False/Progressing',
    });
    expect(
      summary(computeConditions({ deployment: d({ status: 'AWAITING_DATABASE' }) }, undefined)).Ready,
    ).toBe('False/AwaitingDatabase');
  });

  it('names the phase of a revision in flight and keeps Reconciling', () => {
    const set = computeConditions(
      { deployment: d({ active_revision_id: 'r1' }), latestRevision: { id: 'r2', status: 'BUILDING' } },
      undefined,
    );
    expect(summary(set)).toMatchObject({
      Ready: 'False/Building',
      Reconciling: 'True/Progressing',
      Stalled: 'False/Progressing',
    });
  });

  it('stalls on a failed revision of the spec the service holds', () => {
    const set = computeConditions(
      { deployment: d({ active_revision_id: 'r1' }), latestRevision: { id: 'r2', status: 'DEPLOY_FAILED' } },
      undefined,
    );
    expect(summary(set)).toMatchObject({
      Ready: 'False/DeployFailed',
      Reconciling: 'False/Idle',
      Stalled: 'True/DeployFailed',
    });
  });

  it('says why a failed revision failed when its log told, and only for a failure', () => {
    const why = 'revision r2 failed at "pip install": ERROR: no foo';
    const failed = computeConditions(
      {
        deployment: d({ active_revision_id: 'r1' }),
        latestRevision: { id: 'r2', status: 'BUILD_FAILED' },
        failure: why,
      },
      undefined,
    );
    expect([failed.Ready.message, failed.Stalled.message]).toEqual([why, why]);
    expect(
      computeConditions({ deployment: d({ active_revision_id: 'r1' }) }, undefined).Ready.message,
    ).not.toBe(why);
    const moving = computeConditions(
      {
        deployment: d({ active_revision_id: 'r1' }),
        latestRevision: { id: 'r2', status: 'BUILDING' },
        failure: why,
      },
      undefined,
    );
    expect(moving.Ready.message).toBe('revision r2 is BUILDING');
  });

  it('waits on a deployment status the interface does not list: Ready False UnknownServiceStatus, never Stalled', () => {
    const set = computeConditions({ deployment: d({ status: 'AWAITING_FINAL_DELETE' }) }, undefined);
    expect(summary(set)).toEqual({
      Ready: 'False/UnknownServiceStatus',
      Synced: 'True/Synced',
      Reconciling: 'True/Progressing',
      Stalled: 'False/Progressing',
    });
    expect(set.Ready.message).toContain('AWAITING_FINAL_DELETE');
  });

  it('takes a revision status the interface does not list for one in progress', () => {
    const set = computeConditions(
      { deployment: d({ active_revision_id: 'r1' }), latestRevision: { id: 'r2', status: 'ROLLING_OUT' } },
      undefined,
    );
    expect(summary(set)).toMatchObject({
      Ready: 'False/UnknownServiceStatus',
      Reconciling: 'True/Progressing',
      Stalled: 'False/Progressing',
    });
    expect(set.Ready.message).toBe('revision r2 is ROLLING_OUT, a status the operator does not know');
  });

  it('waits on an INTERRUPTED or UNKNOWN latest revision: in progress, not failed', () => {
    for (const [status, reason] of [
      ['INTERRUPTED', 'Interrupted'],
      ['UNKNOWN', 'Unknown'],
    ] as const) {
      const set = computeConditions(
        { deployment: d({ active_revision_id: 'r1' }), latestRevision: { id: 'r2', status } },
        undefined,
      );
      expect(summary(set)).toMatchObject({
        Ready: `False/${reason}`,
        Reconciling: 'True/Progressing',
        Stalled: 'False/Progressing',
      });
    }
  });

  it('counts a SKIPPED latest revision as done: Ready once the service is READY, the earlier revision active', () => {
    const skipped = { id: 'r2', status: 'SKIPPED' };
    const set = computeConditions(
      { deployment: d({ active_revision_id: 'r1' }), latestRevision: skipped },
      undefined,
    );
    expect(summary(set)).toEqual({
      Ready: 'True/Ready',
      Synced: 'True/Synced',
      Reconciling: 'False/Idle',
      Stalled: 'False/Progressing',
    });
    expect(set.Ready.message).toBe(
      'revision r2 was skipped, which the service counts as done; revision r1 is active',
    );
    const waiting = computeConditions(
      { deployment: d({ active_revision_id: null, status: 'AWAITING_DATABASE' }), latestRevision: skipped },
      undefined,
    );
    expect(summary(waiting)).toMatchObject({
      Ready: 'False/AwaitingDatabase',
      Reconciling: 'True/Progressing',
    });
  });

  it('reports a problem in Synced; stalled problems stop Reconciling', () => {
    const invalid = computeConditions(undefined, {
      reason: 'InvalidSpec',
      message: 'image_uri: field required',
      stalled: true,
    });
    expect(summary(invalid)).toEqual({
      Ready: 'False/InvalidSpec',
      Synced: 'False/InvalidSpec',
      Reconciling: 'False/Idle',
      Stalled: 'True/InvalidSpec',
    });
    expect(invalid.Stalled.message).toBe('image_uri: field required');
    const waiting = computeConditions(
      { deployment: d({}) },
      { reason: 'SecretNotFound', message: 'm', stalled: false },
    );
    expect(summary(waiting)).toMatchObject({
      Ready: 'False/SecretNotFound',
      Synced: 'False/SecretNotFound',
      Reconciling: 'True/Progressing',
      Stalled: 'False/Progressing',
    });
  });

  it('keeps Ready as it was while paused', () => {
    const previous = [
      {
        type: 'Ready' as const,
        status: 'True' as const,
        reason: 'Ready',
        message: 'm',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ];
    expect(summary(pausedConditions(previous, 'deploy.agents.dev/paused'))).toMatchObject({
      Ready: 'True/Ready',
      Synced: 'False/ReconcilePaused',
    });
  });
});

describe('toConditions', () => {
  it('moves lastTransitionTime only when the status changes', () => {
    const first = toConditions(computeConditions({ deployment: d({}) }, undefined), undefined, 1, 't1');
    const same = toConditions(computeConditions({ deployment: d({}) }, undefined), first, 2, 't2');
    expect(same.find((c) => c.type === 'Ready')).toMatchObject({
      lastTransitionTime: 't1',
      observedGeneration: 2,
    });
    const changed = toConditions(
      computeConditions({ deployment: d({ status: 'UNKNOWN' }) }, undefined),
      first,
      2,
      't2',
    );
    expect(changed.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      lastTransitionTime: 't2',
    });
  });
});

describe('fields the service keeps', () => {
  it('are said in Synced, which stays True', () => {
    const set = computeConditions({ deployment: d({}), kept: ['sourceConfig.customUrl'] }, undefined);
    expect(set.Synced.status).toBe('True');
    expect(set.Synced.message).toContain('keeps sourceConfig.customUrl once set');
    expect(set.Ready.status).toBe('True');
  });
});
