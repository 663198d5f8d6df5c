// kstatus (sigs.k8s.io/cli-utils status.Compute, via tools/gitops-health kstatus-check): what Flux, kpt and
// Config Sync conclude from our conditions for a kind without healthCheckExprs. It agrees with the conditions
// except in two known places, pinned here so a change in either shows.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { annotations } from '../../src/api/constants.ts';
import { buildTimeoutMs, gitopsHealthBin, judge } from '../support/gitops-health.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../argocd/fixtures/${name}.json`, import.meta.url));

let bin: string;
beforeAll(() => {
  bin = gitopsHealthBin();
}, buildTimeoutMs);

const kstatus = (name: string) => judge(bin, 'kstatus-check', [fixture(name)])[0]!;

describe('kstatus over our conditions', () => {
  it('reads Ready True as Current, Reconciling True and a lagging generation as InProgress, Stalled True as Failed', () => {
    expect(kstatus('deployment-ready').status).toBe('Current');
    expect(kstatus('listener-ready').status).toBe('Current');
    expect(kstatus('deployment-reconciling').status).toBe('InProgress');
    expect(kstatus('deployment-stale-generation').status).toBe('InProgress');
    expect(kstatus('deployment-stalled').status).toBe('Failed');
    expect(kstatus('oauthtoken-stalled').status).toBe('Failed');
  });

  describe('known differences', () => {
    // cli-utils issue 632: with no conditions, kstatus assumes a resource that needs no reconciling. Flux with
    // deploy/flux healthCheckExprs, Argo CD with deploy/argocd/health.lua and `kubectl wait` do not.
    it('a resource without conditions yet reads as Current', () => {
      expect(JSON.parse(readFileSync(fixture('deployment-new'), 'utf8')).status).toEqual({});
      expect(kstatus('deployment-new')).toMatchObject({ status: 'Current', message: 'Resource is current' });
    });

    // kstatus has no suspended state: a paused resource reads by the Ready it kept (Argo CD: Suspended).
    it('a paused resource reads by its Ready condition, not as paused', () => {
      const paused = JSON.parse(readFileSync(fixture('deployment-paused'), 'utf8'));
      expect(paused.metadata.annotations[annotations.paused]).toBe('true');
      expect(kstatus('deployment-paused').status).toBe('Current');
    });
  });
});
