import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { informersFresh } from '../../src/runtime/health.ts';
import { Informer, type ListerWatcher, resourceListerWatcher } from '../../src/runtime/informer.ts';
import { KubeClient } from '../../src/runtime/kube.ts';
import { CONFIGMAPS, type KubeObject, type ResourceRef } from '../../src/runtime/kube-objects.ts';
import { adminKubeConfig, createTestNamespace, installCrds, kubectl } from '../support/kube.ts';
import { TcpProxy } from './tcp-proxy.ts';

type Obj = KubeObject & { data?: Record<string, string>; spec?: Record<string, unknown> };

let admin: KubeClient;
beforeAll(async () => {
  admin = await KubeClient.fromKubeConfig(adminKubeConfig());
});
afterAll(async () => {
  await admin.close();
});

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
const configMap = (ns: string, name: string, data: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(25);
  }
}

/** Records handler calls as "add name", "update name", "delete name". */
function record<T extends KubeObject>(informer: Informer<T>): string[] {
  const log: string[] = [];
  informer.addHandlers({
    onAdd: (o) => log.push(`add ${o.metadata.name}`),
    onUpdate: (_old, o) => log.push(`update ${o.metadata.name}`),
    onDelete: (o) => log.push(`delete ${o.metadata.name}`),
  });
  return log;
}

describe('Informer on ConfigMaps', () => {
  it('lists in pages, then delivers adds, updates and deletes in order', async () => {
    const ns = await createTestNamespace('rt-inf');
    for (let i = 0; i < 23; i++) await admin.create(CONFIGMAPS, configMap(ns, `cm-${i}`));
    const informer = new Informer<Obj>(resourceListerWatcher(admin, CONFIGMAPS, { pageSize: 4 }), {
      namespaces: [ns],
    });
    const log = record(informer);
    informer.start();
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(informer.list()).toHaveLength(23);
    expect(log.filter((l) => l.startsWith('add '))).toHaveLength(23);
    expect(informer.get(`${ns}/cm-7`)?.metadata.name).toBe('cm-7');

    log.length = 0;
    await admin.create(CONFIGMAPS, configMap(ns, 'x', { v: '1' }));
    await admin.mergePatch(CONFIGMAPS, 'x', ns, { data: { v: '2' } });
    await admin.delete(CONFIGMAPS, 'x', ns);
    await admin.create(CONFIGMAPS, configMap(ns, 'y'));
    await until(() => log.length >= 4);
    await delay(300);
    expect(log).toEqual(['add x', 'update x', 'delete x', 'add y']);
    expect(informer.get(`${ns}/x`)).toBeUndefined();
    expect(informer.list()).toHaveLength(24);
    await informer.stop();
  });

  it('restarts a watch that went silent, and reports staleness until it recovers', async () => {
    const ns = await createTestNamespace('rt-stale');
    const proxy = await TcpProxy.start(new URL(adminKubeConfig().getCurrentCluster()!.server));
    const client = await KubeClient.fromKubeConfig(proxy.kubeConfig(adminKubeConfig()));
    const informer = new Informer<Obj>(resourceListerWatcher(client, CONFIGMAPS), {
      namespaces: [ns],
      staleAfterMs: 1000,
      backoffBaseMs: 50,
    });
    const health = informersFresh([informer as Informer<KubeObject>]);
    try {
      informer.start();
      await informer.waitForSync();
      await until(() => informer.stats().watches === 1);
      expect(health()).toEqual([]);

      // The open watch stops carrying bytes without closing; new connections still work.
      proxy.silenceAll();
      await admin.create(CONFIGMAPS, configMap(ns, 'after-silence'));
      await until(() => informer.get(`${ns}/after-silence`) !== undefined);
      expect(informer.stats().staleRestarts).toBeGreaterThanOrEqual(1);
      expect(informer.isStale()).toBe(false);

      // The apiserver becomes unreachable: restarts cannot help, /healthz says so.
      proxy.blackhole = true;
      proxy.silenceAll();
      await until(() => informer.isStale(), 10_000);
      expect(health()).toEqual(['informer 0: watch stale']);

      proxy.blackhole = false;
      await admin.create(CONFIGMAPS, configMap(ns, 'after-outage'));
      await until(() => informer.get(`${ns}/after-outage`) !== undefined);
      expect(informer.isStale()).toBe(false);
      expect(health()).toEqual([]);

      // Stopping closes the watch: nothing of the informer stays open.
      const stopping = Date.now();
      await informer.stop();
      expect(Date.now() - stopping).toBeLessThan(1000);
      expect(client.openWatches).toBe(0);
      await client.close();
      await until(() => proxy.connections === 0, 5000);
    } finally {
      await informer.stop();
      await client.close();
      await proxy.close();
    }
  });
});

const WIDGETS: ResourceRef = {
  group: 'runtime.test.dev',
  version: 'v1',
  plural: 'gadgets',
  namespaced: true,
};
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.runtime.test.dev' },
  spec: {
    group: 'runtime.test.dev',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

describe('Informer after 410 Gone', () => {
  it('relists and delivers exactly what it missed, then watches on', async () => {
    // A CRD installed now has a watch cache that starts at the current revision, so a watch from
    // revision 1 is answered 410 Gone by the real apiserver, as after a long disconnection.
    await installCrds([gadgetCrd]);
    const ns = await createTestNamespace('rt-gone');
    const gadget = (name: string, size: number): Obj => ({
      apiVersion: 'runtime.test.dev/v1',
      kind: 'Gadget',
      metadata: { name, namespace: ns },
      spec: { size },
    });
    for (const name of ['a', 'b', 'c']) await admin.create(WIDGETS, gadget(name, 1));

    const real = resourceListerWatcher<Obj>(admin, WIDGETS);
    let releaseFirstWatch!: () => void;
    const firstWatchGate = new Promise<void>((resolve) => {
      releaseFirstWatch = resolve;
    });
    const resourceVersions: string[] = [];
    const source: ListerWatcher<Obj> = {
      list: real.list,
      watch: async (namespace, resourceVersion, timeout, signal) => {
        resourceVersions.push(resourceVersion);
        if (resourceVersions.length > 1) return real.watch(namespace, resourceVersion, timeout, signal);
        await firstWatchGate; // changes happen now, unseen by any watch
        return real.watch(namespace, '1', timeout, signal);
      },
    };
    const informer = new Informer<Obj>(source, { namespaces: [ns] });
    const log = record(informer);
    informer.start();
    await informer.waitForSync();
    expect(log.sort()).toEqual(['add a', 'add b', 'add c']);
    log.length = 0;

    await admin.mergePatch(WIDGETS, 'a', ns, { spec: { size: 2 } });
    await admin.delete(WIDGETS, 'b', ns);
    await admin.create(WIDGETS, gadget('d', 1));
    releaseFirstWatch();
    await until(() => informer.stats().goneRelists === 1 && informer.stats().watches >= 1);
    // In list order, page by page; what the complete list lacks goes last.
    expect(log).toEqual(['update a', 'add d', 'delete b']);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c', 'd']);
    expect(informer.get(`${ns}/a`)?.spec).toEqual({ size: 2 });

    // The watch resumes from the relist's resourceVersion: new changes arrive once, old ones not again.
    log.length = 0;
    await admin.create(WIDGETS, gadget('e', 1));
    await until(() => log.length >= 1);
    await delay(300);
    expect(log).toEqual(['add e']);
    expect(Number(resourceVersions[1])).toBeGreaterThan(1);
    await informer.stop();
    expect(admin.openWatches).toBe(0);
  });

  it('caches objects without managedFields, and an update from the cache keeps them on the server', async () => {
    const ns = await createTestNamespace('rt-lean');
    await admin.create(CONFIGMAPS, configMap(ns, 'lean', { a: '1' }));
    const informer = new Informer<Obj>(resourceListerWatcher(admin, CONFIGMAPS), { namespaces: [ns] });
    informer.start();
    try {
      await informer.waitForSync();
      const listed = informer.get(`${ns}/lean`)!;
      expect(listed.metadata).not.toHaveProperty('managedFields');
      await admin.update(CONFIGMAPS, { ...listed, data: { a: '2' } });
      await until(() => informer.get(`${ns}/lean`)?.data?.a === '2'); // through the watch
      expect(informer.get(`${ns}/lean`)!.metadata).not.toHaveProperty('managedFields');
      const stored = await admin.get<Obj & { metadata: { managedFields?: unknown[] } }>(
        CONFIGMAPS,
        'lean',
        ns,
      );
      expect(stored.metadata.managedFields?.length).toBeGreaterThan(0);
    } finally {
      await informer.stop();
    }
  });
});

describe('an object applied with kubectl (client-side apply)', () => {
  it('is cached without its last-applied annotation, which a merge patch from the cache leaves on the server', async () => {
    const ns = await createTestNamespace('rt-applied');
    await kubectl(['apply', '-n', ns, '-f', '-'], {
      input: JSON.stringify(configMap(ns, 'applied', { a: '1' })),
    });
    const informer = new Informer<Obj>(resourceListerWatcher(admin, CONFIGMAPS), { namespaces: [ns] });
    informer.start();
    try {
      await informer.waitForSync();
      const cached = informer.get(`${ns}/applied`)!;
      expect(cached.metadata.annotations ?? {}).not.toHaveProperty(lastApplied);
      await admin.mergePatch(CONFIGMAPS, 'applied', ns, { metadata: { annotations: { note: 'x' } } });
      await until(() => informer.get(`${ns}/applied`)?.metadata.annotations?.note === 'x');
      expect(informer.get(`${ns}/applied`)!.metadata.annotations).not.toHaveProperty(lastApplied);
      const stored = await admin.get<Obj>(CONFIGMAPS, 'applied', ns);
      expect(stored.metadata.annotations?.[lastApplied]).toContain('"applied"');
    } finally {
      await informer.stop();
    }
  });
});
