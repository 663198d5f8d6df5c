import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, type WatchEvent } from '../../src/runtime/kube.ts';
import { isConflict, isGone, isNotFound, type KubeError } from '../../src/runtime/kube-errors.ts';
import { buildEvent } from '../../src/runtime/kube-events.ts';
import {
  CONFIGMAPS,
  EVENTS,
  type KubeObject,
  type ResourceRef,
  SECRETS,
} from '../../src/runtime/kube-objects.ts';
import { adminKubeConfig, createTestNamespace, installCrds } from '../support/kube.ts';

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Widget = KubeObject & { spec?: { size?: number }; status?: { phase?: string } };

const WIDGETS: ResourceRef = {
  group: 'runtime.test.dev',
  version: 'v1',
  plural: 'widgets',
  namespaced: true,
};
const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.runtime.test.dev' },
  spec: {
    group: 'runtime.test.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

let client: KubeClient;
let ns: string;

beforeAll(async () => {
  client = await KubeClient.fromKubeConfig(adminKubeConfig());
  ns = await createTestNamespace('rt-kube');
  await installCrds([widgetCrd]);
});
afterAll(async () => {
  await client.close();
});

const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

describe('KubeClient against kube-apiserver', () => {
  it('creates, gets, merge-patches with a precondition, and deletes', async () => {
    const created = await client.create(CONFIGMAPS, cm('a', { k: '1' }));
    expect(created.metadata.uid).toBeTruthy();
    const got = await client.get<ConfigMap>(CONFIGMAPS, 'a', ns);
    expect(got.data).toEqual({ k: '1' });

    const patched = await client.mergePatch<ConfigMap>(
      CONFIGMAPS,
      'a',
      ns,
      { data: { k: '2' } },
      {
        resourceVersion: got.metadata.resourceVersion,
      },
    );
    expect(patched.data).toEqual({ k: '2' });
    const staleMerge = await client
      .mergePatch(
        CONFIGMAPS,
        'a',
        ns,
        { data: { k: '3' } },
        { resourceVersion: got.metadata.resourceVersion },
      )
      .catch((e: KubeError) => e);
    expect(isConflict(staleMerge)).toBe(true);
    expect((staleMerge as KubeError).reason).toBe('Conflict');

    await client.delete(CONFIGMAPS, 'a', ns);
    const missing = await client.get(CONFIGMAPS, 'a', ns).catch((e: KubeError) => e);
    expect(isNotFound(missing)).toBe(true);
    expect((missing as KubeError).status).toBe(404);
  });

  it('lists page by page and as a whole at one resourceVersion', async () => {
    for (let i = 0; i < 7; i++) await client.create(CONFIGMAPS, cm(`page-${i}`));
    const first = await client.list<ConfigMap>(CONFIGMAPS, { namespace: ns, limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.continue).toBeTruthy();
    const all = await client.listAll<ConfigMap>(CONFIGMAPS, { namespace: ns, pageSize: 2 });
    const names = all.items.map((o) => o.metadata.name).filter((n) => n.startsWith('page-'));
    expect(names.sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`));
    expect(Number(all.resourceVersion)).toBeGreaterThan(0);
  });

  it('watches from a resourceVersion, with bookmarks asked for', async () => {
    const start = await client.list(CONFIGMAPS, { namespace: ns, limit: 1 });
    const abort = new AbortController();
    const stream = await client.watch<ConfigMap>(CONFIGMAPS, {
      namespace: ns,
      resourceVersion: start.resourceVersion,
      signal: abort.signal,
    });
    expect(client.openWatches).toBe(0);
    await client.create(CONFIGMAPS, cm('w1'));
    await client.delete(CONFIGMAPS, 'w1', ns);
    const seen: string[] = [];
    for await (const event of stream) {
      if (event.type === 'ADDED' || event.type === 'DELETED')
        seen.push(`${event.type} ${event.object.metadata.name}`);
      expect(client.openWatches).toBe(1);
      if (seen.length === 2) abort.abort();
    }
    expect(seen).toEqual(['ADDED w1', 'DELETED w1']);
    expect(client.openWatches).toBe(0);
  });

  it('surfaces a too-old resourceVersion as 410 Gone', async () => {
    // The watch cache of a freshly installed CRD starts at the current revision, so "1" is too old
    // (on a fresh apiserver the ConfigMap cache may still reach back to revision 1).
    const events: WatchEvent<Widget>[] = [];
    for (let attempt = 0; events.length === 0; attempt++) {
      try {
        const stream = await client.watch<Widget>(WIDGETS, { namespace: ns, resourceVersion: '1' });
        for await (const event of stream) events.push(event);
      } catch (err) {
        // Right after the CRD is established its watch cache may still be filling (429/503).
        if (!(err instanceof Error && 'status' in err) || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.type).toBe('ERROR');
    if (event?.type === 'ERROR') {
      expect(isGone(event.error)).toBe(true);
      expect(event.error.reason).toBe('Expired');
    }
    expect(client.openWatches).toBe(0);
  });

  it('writes the status subresource separately from the spec', async () => {
    const widget = await client.create<Widget>(WIDGETS, {
      apiVersion: 'runtime.test.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 1 },
    });
    const withStatus = await client.mergePatch<Widget>(
      WIDGETS,
      'w',
      ns,
      { status: { phase: 'Ready' } },
      { subresource: 'status', resourceVersion: widget.metadata.resourceVersion },
    );
    expect(withStatus.status?.phase).toBe('Ready');
    const stale = await client
      .mergePatch(
        WIDGETS,
        'w',
        ns,
        { status: { phase: 'Old' } },
        { subresource: 'status', resourceVersion: widget.metadata.resourceVersion },
      )
      .catch((e: KubeError) => e);
    expect(isConflict(stale)).toBe(true);
    // A status write ignores spec changes; a main-resource write ignores status changes.
    const statusOnly = await client.mergePatch<Widget>(
      WIDGETS,
      'w',
      ns,
      { spec: { size: 9 }, status: { phase: 'Done' } },
      { subresource: 'status' },
    );
    expect(statusOnly.spec?.size).toBe(1);
    expect(statusOnly.status?.phase).toBe('Done');
    const specOnly = await client.mergePatch<Widget>(WIDGETS, 'w', ns, {
      spec: { size: 2 },
      status: { phase: 'X' },
    });
    expect(specOnly.spec?.size).toBe(2);
    expect(specOnly.status?.phase).toBe('Done');
  });

  it('reads Secrets and records Events', async () => {
    await client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: ns },
      stringData: { token: 'abc' },
    } as KubeObject);
    const secret = await client.getSecret(ns, 's');
    expect(Buffer.from(secret.data?.token ?? '', 'base64').toString()).toBe('abc');

    const target = await client.create(CONFIGMAPS, cm('evented'));
    await client.createEvent(
      buildEvent(
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'evented', namespace: ns, uid: target.metadata.uid },
        { type: 'Normal', reason: 'Tested', message: 'an event' },
        'runtime-test',
        new Date(),
      ),
    );
    const events = await client.list<KubeObject & { reason?: string }>(EVENTS, {
      namespace: ns,
      fieldSelector: 'involvedObject.name=evented',
    });
    expect(events.items.map((e) => e.reason)).toEqual(['Tested']);
  });
});
