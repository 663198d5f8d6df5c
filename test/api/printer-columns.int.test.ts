// `kubectl get` on a real kube-apiserver says why: the printer columns over resources whose status was captured
// from real reconciles (test/argocd/fixtures): ready, in progress, failed and paused.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { crdDocuments } from '../../src/api/crd.ts';
import { createTestNamespace, installCrds, kubectl } from '../support/kube.ts';

interface Fixture {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: object;
  status: { conditions: { type: string; reason: string; message: string }[] };
}

const fixture = (file: string) =>
  JSON.parse(readFileSync(new URL(`../argocd/fixtures/${file}.json`, import.meta.url), 'utf8')) as Fixture;
const ready = (f: Fixture) => f.status.conditions.find((c) => c.type === 'Ready')!;

let ns: string;

/** Creates the fixture's resource under `name` and writes its status through the status subresource. */
async function recreate(file: string, name: string): Promise<Fixture> {
  const f = fixture(file);
  const namespaced = f.kind !== 'Listener';
  const manifest = {
    apiVersion: f.apiVersion,
    kind: f.kind,
    metadata: { name, annotations: f.metadata.annotations ?? {} },
    spec: f.spec,
  };
  const where = namespaced ? ['-n', ns] : [];
  await kubectl(['apply', ...where, '-f', '-'], { input: JSON.stringify(manifest) });
  const resource = `${f.kind.toLowerCase()}s.deploy.agents.dev/${name}`;
  const patch = JSON.stringify({ status: f.status });
  await kubectl(['patch', ...where, resource, '--subresource=status', '--type=merge', '-p', patch]);
  return f;
}

/** `kubectl get` as rows of named cells: cells are cut where the header's words begin (kubectl aligns them). */
async function table(args: string[]): Promise<Record<string, string>[]> {
  const [header = '', ...lines] = (await kubectl(['get', ...args])).stdout.trimEnd().split('\n');
  const starts = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.map((line) =>
    Object.fromEntries(
      starts.map(({ name, at }, i) => [name, line.slice(at, starts[i + 1]?.at ?? line.length).trim()]),
    ),
  );
}

beforeAll(async () => {
  await installCrds(crdDocuments());
  ns = await createTestNamespace('columns');
});

describe('kubectl get says why', () => {
  it('shows Ready, its reason, Synced, the service and revision status for Deployments; -o wide adds the message', async () => {
    const cases = {
      ready: await recreate('deployment-ready', 'ready'),
      creating: await recreate('deployment-reconciling', 'creating'),
      failed: await recreate('deployment-stalled', 'failed'),
      paused: await recreate('deployment-paused', 'paused'),
    };
    const rows = await table(['-n', ns, 'adep']);
    expect(Object.keys(rows[0]!)).toEqual([
      'NAME',
      'READY',
      'REASON',
      'SYNCED',
      'SERVICE',
      'REVISION',
      'AGE',
    ]);
    const byName = Object.fromEntries(rows.map((r) => [r.NAME, r]));
    expect(byName.ready).toMatchObject({
      READY: 'True',
      REASON: 'Ready',
      SYNCED: 'Synced',
      SERVICE: 'READY',
    });
    expect(byName.creating).toMatchObject({ READY: 'False', REASON: 'Creating', REVISION: 'CREATING' });
    expect(byName.failed).toMatchObject({ READY: 'False', REASON: 'BuildFailed', REVISION: 'BUILD_FAILED' });
    // Paused keeps Ready as it was; SYNCED says why nothing moves.
    expect(byName.paused).toMatchObject({ READY: 'True', SYNCED: 'ReconcilePaused' });

    const wide = await table(['-n', ns, 'adep', '-o', 'wide']);
    expect(Object.keys(wide[0]!)).toEqual([
      'NAME',
      'READY',
      'REASON',
      'SYNCED',
      'SERVICE',
      'REVISION',
      'AGE',
      'SOURCE',
      'MESSAGE',
    ]);
    for (const row of wide) {
      const f = cases[row.NAME as keyof typeof cases];
      expect(row.MESSAGE).toBe(ready(f).message);
      expect(row.SOURCE).toBe((f.spec as { source: string }).source);
    }
  });

  it('shows the same condition columns on every kind', async () => {
    const listener = await recreate('listener-ready', `columns-${ns}`);
    await recreate('oauthtoken-stalled', 'missing-token');
    await recreate('agentconnection-ready', 'connected');
    const [l] = await table(['alis', `columns-${ns}`, '-o', 'wide']);
    expect(l).toMatchObject({
      READY: 'True',
      REASON: 'Ready',
      SYNCED: 'Synced',
      MESSAGE: ready(listener).message,
    });
    const [t] = await table(['-n', ns, 'otok', 'missing-token']);
    expect(t).toMatchObject({ READY: 'False', REASON: 'NotFound', SYNCED: 'NotFound' });
    const [c] = await table(['-n', ns, 'aconn', 'connected']);
    expect(c).toMatchObject({ READY: 'True', REASON: 'Ready', SYNCED: 'Synced' });
    await kubectl(['delete', 'alis', `columns-${ns}`, '--wait=false']);
  });
});
