// The Argo CD health check (deploy/argocd/health.lua, registered for every kind) run the way the Argo CD
// application controller runs an argocd-cm script (gopher-lua without the string, math and os libraries, via
// tools/gitops-health argocd-health), over resources captured from real reconciles
// (test/cli/commands/sandbox.int.test.ts writes the fixtures with AGENT_DEPLOY_WRITE_FIXTURES=1).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { argocdConfigMap } from '../../deploy/argocd/generate.ts';
import { annotations, group, kindNames } from '../../src/api/constants.ts';
import { buildTimeoutMs, gitopsHealthBin, judge } from '../support/gitops-health.ts';

const script = fileURLToPath(new URL('../../deploy/argocd/health.lua', import.meta.url));
const configMap = fileURLToPath(new URL('../../deploy/argocd/argocd-cm.yaml', import.meta.url));
const fixturesDir = new URL('./fixtures/', import.meta.url);
const kinds = Object.values(kindNames).map((k) => k.kind);

let bin: string;
beforeAll(() => {
  bin = gitopsHealthBin();
}, buildTimeoutMs);

/** Argo CD's {status, message} for one fixture, with the script argocd-cm.yaml registers for its kind. */
function health(name: string): { status: string; message: string } {
  const [verdict] = judge(bin, 'argocd-health', [
    '--argocd-cm',
    configMap,
    fileURLToPath(new URL(`${name}.json`, fixturesDir)),
  ]);
  return { status: verdict!.status, message: verdict!.message };
}

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`${name}.json`, fixturesDir), 'utf8')) as {
    kind: string;
    metadata: { generation: number; annotations?: Record<string, string> };
    status?: { conditions: { type: string; status: string; reason: string; message: string }[] };
  };
const condition = (name: string, type: string) =>
  fixture(name).status!.conditions.find((c) => c.type === type)!;

describe('Argo CD health checks', () => {
  describe('the health of any kind, from its conditions', () => {
    it('is Healthy when Ready is True', () => {
      expect(health('deployment-ready')).toEqual({
        status: 'Healthy',
        message: `Ready: ${condition('deployment-ready', 'Ready').message}`,
      });
    });

    it('is Progressing while Reconciling is True', () => {
      expect(health('deployment-reconciling')).toEqual({
        status: 'Progressing',
        message: `Progressing: ${condition('deployment-reconciling', 'Reconciling').message}`,
      });
    });

    it('is Progressing before the operator wrote any condition', () => {
      expect(fixture('deployment-new').status).toEqual({});
      expect(health('deployment-new').status).toBe('Progressing');
    });

    it('is Progressing, not Healthy, while status.observedGeneration lags metadata.generation', () => {
      const stale = fixture('deployment-stale-generation');
      expect(health('deployment-stale-generation')).toEqual({
        status: 'Progressing',
        message: `waiting for the operator to observe generation ${stale.metadata.generation}`,
      });
    });

    it('is Degraded with the Stalled message when Stalled is True', () => {
      const stalled = condition('deployment-stalled', 'Stalled');
      expect(stalled.reason).toBe('BuildFailed');
      expect(health('deployment-stalled')).toEqual({
        status: 'Degraded',
        message: `BuildFailed: ${stalled.message}`,
      });
    });

    it('is Suspended when paused', () => {
      expect(fixture('deployment-paused').metadata.annotations?.[annotations.paused]).toBe('true');
      expect(health('deployment-paused').status).toBe('Suspended');
    });
  });

  // Fixtures of the other kinds exist once their controllers run in the sandbox test.
  const readyFixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('-ready.json'));
  it.each(readyFixtures)('reads %s as Healthy', (file) => {
    expect(health(file.replace(/\.json$/, '')).status).toBe('Healthy');
  });

  const stalledFixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('-stalled.json'));
  it.each(stalledFixtures)('reads %s as Degraded with the Stalled reason and message', (file) => {
    const name = file.replace(/\.json$/, '');
    const stalled = condition(name, 'Stalled');
    expect(stalled.status).toBe('True');
    expect(health(name)).toEqual({
      status: 'Degraded',
      message: `${stalled.reason}: ${stalled.message}`,
    });
  });

  it('argocd-cm.yaml embeds exactly deploy/argocd/health.lua for every kind', () => {
    const text = readFileSync(configMap, 'utf8');
    expect(text, 'run `node deploy/argocd/generate.ts`').toBe(argocdConfigMap());
    const data = parse(text).data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(
      kinds.map((k) => `resource.customizations.health.${group}_${k}`).sort(),
    );
    for (const kind of kinds)
      expect(data[`resource.customizations.health.${group}_${kind}`]).toBe(readFileSync(script, 'utf8'));
  });
});
