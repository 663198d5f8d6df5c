import { describe, expect, it } from 'vitest';
import { decideFault, FaultConfigSchema, garbles } from '../../src/emulator/faults.ts';
import { outcomeOf, revisionStateAt, stoppedStatus } from '../../src/emulator/lifecycle.ts';

describe('revisionStateAt', () => {
  const rev = { startedAt: 1_000, outcome: 'DEPLOYED' as const, stopped: null };

  it('enters one state per step and records when', () => {
    expect(revisionStateAt(rev, 100, 1_000)).toEqual({ status: 'CREATING', since: 1_000 });
    expect(revisionStateAt(rev, 100, 1_199)).toEqual({ status: 'QUEUED', since: 1_100 });
    expect(revisionStateAt(rev, 100, 1_600)).toEqual({ status: 'DEPLOYED', since: 1_600 });
    expect(revisionStateAt(rev, 100, 99_999)).toEqual({ status: 'DEPLOYED', since: 1_600 });
    expect(revisionStateAt(rev, 0, 1_000)).toEqual({ status: 'DEPLOYED', since: 1_000 });
  });

  it('stays where it was stopped', () => {
    const stopped = { ...rev, stopped: { status: 'SKIPPED' as const, at: 1_050 } };
    expect(revisionStateAt(stopped, 100, 5_000)).toEqual({ status: 'SKIPPED', since: 1_050 });
    expect(stoppedStatus('AWAITING_BUILD')).toBe('SKIPPED');
    expect(stoppedStatus('BUILDING')).toBe('INTERRUPTED');
    expect(stoppedStatus('DEPLOYING')).toBe('INTERRUPTED');
  });

  it('picks the outcome from the markers, fail-create first', () => {
    expect(outcomeOf({ image_uri: 'a/fail-build:1' })).toBe('BUILD_FAILED');
    expect(outcomeOf({ graph_config_path: 'fail-deploy.json', image_uri: 'fail-create' })).toBe(
      'CREATE_FAILED',
    );
    expect(outcomeOf({ source_tarball_path: 'ok.tgz', repo_ref: 'fail-build' })).toBe('DEPLOYED');
  });
});

describe('decideFault', () => {
  const seq =
    (...values: number[]) =>
    () =>
      values.shift() ?? 0;

  it('resets, errors or only delays according to the rates', () => {
    const config = FaultConfigSchema.parse({
      reset_rate: 0.5,
      error_rate: 0.5,
      statuses: [429, 500],
      retry_after_s: 3,
    });
    expect(decideFault(config, 'GET /v2/listeners', seq(0.1))).toEqual({
      latencyMs: 0,
      action: { kind: 'reset' },
    });
    expect(decideFault(config, 'GET /v2/listeners', seq(0.9, 0.1, 0.1))).toEqual({
      latencyMs: 0,
      action: { kind: 'error', status: 429, retryAfterS: 3 },
    });
    expect(decideFault(config, 'GET /v2/listeners', seq(0.9, 0.1, 0.9))?.action).toEqual({
      kind: 'error',
      status: 500,
      retryAfterS: null,
    });
    expect(decideFault(config, 'GET /v2/listeners', seq(0.9, 0.9))).toBeNull();
    const slow = FaultConfigSchema.parse({ latency_ms: 20 });
    expect(decideFault(slow, 'GET /v2/listeners', seq(0.9, 0.9))).toEqual({ latencyMs: 20, action: null });
  });

  it('garbles only successful answers of the listed paths, at the rate', () => {
    const config = FaultConfigSchema.parse({ garble_rate: 0.5, paths: ['POST /v2/deployments'] });
    expect(garbles(config, 'POST /v2/deployments', 201, () => 0.1)).toBe(true);
    expect(garbles(config, 'POST /v2/deployments', 201, () => 0.9)).toBe(false);
    expect(garbles(config, 'POST /v2/deployments', 422, () => 0.1)).toBe(false);
    expect(garbles(config, 'GET /v2/deployments', 200, () => 0.1)).toBe(false);
  });

  it('applies only to the listed paths', () => {
    const config = FaultConfigSchema.parse({
      error_rate: 1,
      paths: ['POST /v2/deployments', '/v2/listeners'],
    });
    expect(decideFault(config, 'POST /v2/deployments', seq(0.9, 0))).not.toBeNull();
    expect(decideFault(config, 'GET /v2/deployments', seq(0.9, 0))).toBeNull();
    expect(decideFault(config, 'GET /v2/listeners', seq(0.9, 0))).not.toBeNull();
  });
});
