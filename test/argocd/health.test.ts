// The Argo CD health check (deploy/argocd/health.lua, registered for every kind), run by a real Lua 5.1 interpreter — the
// language version of Argo CD's gopher-lua — over resources captured from real reconciles
// (test/cli/commands/sandbox.int.test.ts writes the fixtures with AGENT_DEPLOY_WRITE_FIXTURES=1).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { argocdConfigMap } from '../../deploy/argocd/generate.ts';
import { annotations, group, kindNames } from '../../src/api/constants.ts';

const script = new URL('../../deploy/argocd/health.lua', import.meta.url).pathname;
const fixturesDir = new URL('./fixtures/', import.meta.url);
const kinds = Object.values(kindNames).map((k) => k.kind);

/** A Lua string literal: quotes, backslashes and control characters as three-digit decimal escapes. */
const luaString = (s: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be escaped
  `"${s.replace(/[\\"\x00-\x1f]/g, (c) => `\\${String(c.charCodeAt(0)).padStart(3, '0')}`)}"`;

/** JSON as a Lua table constructor; JSON null becomes nil, as Argo CD's conversion does. */
function luaValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return luaString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaValue).join(', ')}}`;
  return `{${Object.entries(value as object)
    .map(([k, v]) => `[${luaString(k)}] = ${luaValue(v)}`)
    .join(', ')}}`;
}

/** Runs one health script with `obj` set, as Argo CD does; returns its {status, message}. */
function health(obj: unknown): { status: string; message: string } {
  const harness = `obj = ${luaValue(obj)}
local hs = assert(loadfile(${luaString(script)}))()
io.write(hs.status, "\\n", hs.message or "")`;
  const [status = '', message = ''] = execFileSync('lua5.1', ['-'], {
    input: harness,
    encoding: 'utf8',
  }).split('\n');
  return { status, message };
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
  it('the JSON → Lua conversion keeps strings, numbers, nesting and escapes', () => {
    const tricky = { a: 'quote " backslash \\ newline \n', n: [1, 2.5, true], nested: { x: null } };
    const out = execFileSync('lua5.1', ['-'], {
      input: `local t = ${luaValue(tricky)}
io.write(t.a, "|", #t.n, "|", t.n[2], "|", tostring(t.n[3]), "|", tostring(t.nested.x))`,
      encoding: 'utf8',
    });
    expect(out).toBe(`${tricky.a}|3|2.5|true|nil`);
  });

  describe('the health of any kind, from its conditions', () => {
    it('is Healthy when Ready is True', () => {
      expect(health(fixture('deployment-ready'))).toEqual({
        status: 'Healthy',
        message: `Ready: ${condition('deployment-ready', 'Ready').message}`,
      });
    });

    it('is Progressing while Reconciling is True', () => {
      expect(health(fixture('deployment-reconciling'))).toEqual({
        status: 'Progressing',
        message: `Progressing: ${condition('deployment-reconciling', 'Reconciling').message}`,
      });
    });

    it('is Progressing before the operator wrote any condition', () => {
      expect(fixture('deployment-new').status).toBeUndefined();
      expect(health(fixture('deployment-new')).status).toBe('Progressing');
    });

    it('is Progressing, not Healthy, while status.observedGeneration lags metadata.generation', () => {
      const stale = fixture('deployment-stale-generation');
      expect(health(stale)).toEqual({
        status: 'Progressing',
        message: `waiting for the operator to observe generation ${stale.metadata.generation}`,
      });
    });

    it('is Degraded with the Stalled message when Stalled is True', () => {
      const stalled = condition('deployment-stalled', 'Stalled');
      expect(stalled.reason).toBe('BuildFailed');
      expect(health(fixture('deployment-stalled'))).toEqual({
        status: 'Degraded',
        message: `BuildFailed: ${stalled.message}`,
      });
    });

    it('is Suspended when paused', () => {
      expect(fixture('deployment-paused').metadata.annotations?.[annotations.paused]).toBe('true');
      expect(health(fixture('deployment-paused')).status).toBe('Suspended');
    });
  });

  // Fixtures of the other kinds exist once their controllers run in the sandbox test.
  const readyFixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('-ready.json'));
  it.each(readyFixtures)('reads %s as Healthy', (file) => {
    const cr = fixture(file.replace(/\.json$/, ''));
    expect(health(cr).status).toBe('Healthy');
  });

  const stalledFixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('-stalled.json'));
  it.each(stalledFixtures)('reads %s as Degraded with the Stalled reason and message', (file) => {
    const name = file.replace(/\.json$/, '');
    const stalled = condition(name, 'Stalled');
    expect(stalled.status).toBe('True');
    expect(health(fixture(name))).toEqual({
      status: 'Degraded',
      message: `${stalled.reason}: ${stalled.message}`,
    });
  });

  it('argocd-cm.yaml embeds exactly deploy/argocd/health.lua for every kind', () => {
    const text = readFileSync(new URL('../../deploy/argocd/argocd-cm.yaml', import.meta.url), 'utf8');
    expect(text, 'run `node deploy/argocd/generate.ts`').toBe(argocdConfigMap());
    const data = parse(text).data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(
      kinds.map((k) => `resource.customizations.health.${group}_${k}`).sort(),
    );
    for (const kind of kinds)
      expect(data[`resource.customizations.health.${group}_${kind}`]).toBe(readFileSync(script, 'utf8'));
  });
});
