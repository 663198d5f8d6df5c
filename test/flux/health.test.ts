// The Flux health checks (deploy/flux/kustomization-agents.yaml, spec.healthCheckExprs) evaluated by Flux's own status
// reader (github.com/fluxcd/pkg/runtime/cel, via tools/gitops-health flux-health) over the resources the Argo CD
// test reads, captured from real reconciles.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fluxKustomization, healthCheckExpressions } from '../../deploy/flux/generate.ts';
import { apiVersion, kindNames } from '../../src/api/constants.ts';
import { buildTimeoutMs, gitopsHealthBin, judge } from '../support/gitops-health.ts';

const kustomization = fileURLToPath(new URL('../../deploy/flux/kustomization-agents.yaml', import.meta.url));
const fixturesDir = new URL('../argocd/fixtures/', import.meta.url);
const fixture = (name: string) => fileURLToPath(new URL(`${name}.json`, fixturesDir));
const fixtures = readdirSync(fixturesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''));

let bin: string;
beforeAll(() => {
  bin = gitopsHealthBin();
}, buildTimeoutMs);

/** Flux's verdict on one fixture. */
const flux = (name: string) => {
  const [verdict] = judge(bin, 'flux-health', [kustomization, fixture(name)]);
  return verdict!;
};

describe('Flux healthCheckExprs', () => {
  it('kustomization-agents.yaml is what generate.ts writes, with the same expressions for every kind', () => {
    const text = readFileSync(kustomization, 'utf8');
    expect(text, 'run `node deploy/flux/generate.ts`').toBe(fluxKustomization());
    const checks = parse(text).spec.healthCheckExprs as Record<string, string>[];
    expect(checks.map((c) => c.kind).sort()).toEqual(
      Object.values(kindNames)
        .map((k) => k.kind)
        .sort(),
    );
    for (const check of checks)
      expect(check).toEqual({ apiVersion, kind: check.kind, ...healthCheckExpressions });
  });

  it('reads Ready True at the current generation as Current', () => {
    expect(flux('deployment-ready')).toMatchObject({ status: 'Current' });
  });

  it('reads Reconciling True as InProgress', () => {
    expect(flux('deployment-reconciling')).toMatchObject({ status: 'InProgress' });
  });

  it('reads a status.observedGeneration behind metadata.generation as InProgress', () => {
    expect(flux('deployment-stale-generation')).toMatchObject({ status: 'InProgress' });
  });

  it('reads Stalled True as Failed', () => {
    expect(flux('deployment-stalled')).toMatchObject({ status: 'Failed' });
  });

  // CEL cannot test whether a top-level field exists: on an object without `status` every expression fails and
  // Flux's reader says Unknown. The CRDs default `status` to {} (src/api/crd.ts), so a resource the operator
  // has not looked at yet has no conditions, which no expression matches: InProgress, never Current (as kstatus
  // alone would say, test/flux/kstatus.test.ts).
  it('reads a resource the operator has not looked at yet as InProgress', () => {
    expect(JSON.parse(readFileSync(fixture('deployment-new'), 'utf8')).status).toEqual({});
    expect(flux('deployment-new')).toMatchObject({ status: 'InProgress' });
  });

  it('would read one without any status as Unknown (waited on), never Current', () => {
    const { status: _, ...bare } = JSON.parse(readFileSync(fixture('deployment-new'), 'utf8'));
    const [verdict] = judge(bin, 'flux-health', [kustomization, '-'], JSON.stringify(bare));
    expect(verdict).toMatchObject({
      status: 'Unknown',
      message: expect.stringContaining('no such attribute(s): status.conditions'),
    });
  });

  it('has no notion of paused: a paused resource keeps the health of its last Ready', () => {
    expect(flux('deployment-paused')).toMatchObject({ status: 'Current' });
  });

  const ready = fixtures.filter((f) => f.endsWith('-ready'));
  it.each(ready)('reads %s as Current', (name) => {
    expect(flux(name)).toMatchObject({ status: 'Current' });
  });

  const stalled = fixtures.filter((f) => f.endsWith('-stalled'));
  it.each(stalled)('reads %s as Failed', (name) => {
    expect(flux(name)).toMatchObject({ status: 'Failed' });
  });

  it('judges every fixture, none by luck: each kind has its expressions', () => {
    const verdicts = fixtures.map((name) => flux(name));
    expect(verdicts.filter((v) => v.status === '<none>')).toEqual([]);
  });
});
