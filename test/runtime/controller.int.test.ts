import { setTimeout as delay } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller, watchPrimary, watchSecondary } from '../../src/runtime/controller.ts';
import { Informer, resourceListerWatcher } from '../../src/runtime/informer.ts';
import { KubeClient } from '../../src/runtime/kube.ts';
import { CONFIGMAPS, type KubeObject, SECRETS, type Secret } from '../../src/runtime/kube-objects.ts';
import { adminKubeConfig, createTestNamespace } from '../support/kube.ts';

type ConfigMap = KubeObject & { data?: Record<string, string> };

let client: KubeClient;
beforeAll(async () => {
  client = await KubeClient.fromKubeConfig(adminKubeConfig());
});
afterAll(async () => {
  await client.close();
});

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(20);
  }
}

const configMap = (ns: string, name: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

describe('Controller', () => {
  it('reconciles each key once per change, never concurrently, retries errors and follows secondaries', async () => {
    const ns = await createTestNamespace('rt-ctl');
    for (let i = 0; i < 8; i++) await client.create(CONFIGMAPS, configMap(ns, `cm-${i}`, { v: '0' }));
    await client.create(CONFIGMAPS, configMap(ns, 'fails-twice'));

    const configMaps = new Informer<ConfigMap>(resourceListerWatcher(client, CONFIGMAPS), {
      namespaces: [ns],
    });
    const secrets = new Informer<Secret>(resourceListerWatcher(client, SECRETS), { namespaces: [ns] });
    const registry = new Registry();
    const runs = new Map<string, number>();
    const seen = new Map<string, string | undefined>();
    const active = new Set<string>();
    let overlaps = 0;
    let reconciledBeforeSync = 0;
    let maxActive = 0;
    const controller = new Controller({
      name: 'configmaps',
      concurrency: 4,
      registry,
      rateLimiter: { baseDelayMs: 20 },
      watches: [
        watchPrimary(configMaps),
        // A Secret names the ConfigMap that depends on it.
        watchSecondary(secrets, (s) =>
          s.metadata.annotations?.for ? [`${ns}/${s.metadata.annotations.for}`] : [],
        ),
      ],
      reconcile: async (key) => {
        if (!configMaps.hasSynced() || !secrets.hasSynced()) reconciledBeforeSync++;
        if (active.has(key)) overlaps++;
        active.add(key);
        maxActive = Math.max(maxActive, active.size);
        const count = (runs.get(key) ?? 0) + 1;
        runs.set(key, count);
        seen.set(key, configMaps.get(key)?.data?.v);
        try {
          await delay(30);
          if (key.endsWith('/fails-twice') && count <= 2) throw new Error('not yet');
          if (key.endsWith('/requeue') && count === 1) return { requeueAfterMs: 300 };
        } finally {
          active.delete(key);
        }
      },
    });
    expect(controller.ready()).toBe(false);
    await controller.start();
    expect(controller.ready()).toBe(true);

    // Every object present at start: once each (the failing one three times).
    await until(() => runs.size === 9 && runs.get(`${ns}/fails-twice`) === 3);
    await delay(200);
    for (let i = 0; i < 8; i++) expect(runs.get(`${ns}/cm-${i}`)).toBe(1);
    expect(reconciledBeforeSync).toBe(0);
    expect(maxActive).toBeGreaterThan(1);

    // One change, one reconcile, which sees the new state.
    await client.mergePatch(CONFIGMAPS, 'cm-1', ns, { data: { v: '1' } });
    await until(() => runs.get(`${ns}/cm-1`) === 2);
    expect(seen.get(`${ns}/cm-1`)).toBe('1');

    // A burst of changes to one key: reconciled one at a time, ending on the latest state.
    for (let v = 2; v <= 6; v++) await client.mergePatch(CONFIGMAPS, 'cm-2', ns, { data: { v: String(v) } });
    await until(() => seen.get(`${ns}/cm-2`) === '6');
    await delay(200);
    expect(runs.get(`${ns}/cm-2`)).toBeGreaterThanOrEqual(2);
    expect(runs.get(`${ns}/cm-2`)).toBeLessThanOrEqual(6);

    // A Secret change wakes the ConfigMap that depends on it, and only that one.
    const before = new Map(runs);
    await client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: ns, annotations: { for: 'cm-3' } },
    });
    await until(() => runs.get(`${ns}/cm-3`) === 2);
    await delay(200);
    for (const [key, n] of before) if (key !== `${ns}/cm-3`) expect(runs.get(key)).toBe(n);

    // requeueAfterMs brings a key back without any change.
    const created = Date.now();
    await client.create(CONFIGMAPS, configMap(ns, 'requeue'));
    await until(() => runs.get(`${ns}/requeue`) === 2);
    expect(Date.now() - created).toBeGreaterThanOrEqual(300);

    // A key enqueued from outside the informers (e.g. an observer of the external service).
    controller.enqueue(`${ns}/cm-4`, 50);
    await until(() => runs.get(`${ns}/cm-4`) === 2);

    expect(overlaps).toBe(0);
    const metrics = await registry.metrics();
    expect(metrics).toContain('controller_runtime_reconcile_errors_total{controller="configmaps"} 2');
    expect(metrics).toContain(
      'controller_runtime_reconcile_total{controller="configmaps",result="requeue_after"} 1',
    );
    expect(metrics).toMatch(
      /controller_runtime_reconcile_total\{controller="configmaps",result="success"\} (\d+)/,
    );
    expect(metrics).toContain('workqueue_retries_total{name="configmaps"} 2');
    expect(metrics).toMatch(/workqueue_adds_total\{name="configmaps"\} \d+/);
    await controller.stop();
    expect(controller.ready()).toBe(false);
    expect(client.openWatches).toBe(0);
    expect(await registry.metrics()).toContain(
      'controller_runtime_active_workers{controller="configmaps"} 0',
    );
  });

  it('stop lets in-flight reconciles finish, and aborts them at the deadline', async () => {
    const ns = await createTestNamespace('rt-stop');
    await client.create(CONFIGMAPS, configMap(ns, 'slow'));
    await client.create(CONFIGMAPS, configMap(ns, 'stuck'));
    const informer = new Informer<ConfigMap>(resourceListerWatcher(client, CONFIGMAPS), { namespaces: [ns] });
    const outcome = new Map<string, string>();
    const started = new Set<string>();
    const controller = new Controller({
      name: 'stopping',
      concurrency: 2,
      shutdownTimeoutMs: 500,
      watches: [watchPrimary(informer)],
      reconcile: async (key, signal) => {
        started.add(key);
        if (key.endsWith('/slow')) {
          await delay(200);
          outcome.set(key, signal.aborted ? 'aborted' : 'finished');
          return;
        }
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        outcome.set(key, 'aborted');
      },
    });
    await controller.start();
    await until(() => started.size === 2);
    const stopping = Date.now();
    await controller.stop();
    const took = Date.now() - stopping;
    expect(outcome.get(`${ns}/slow`)).toBe('finished');
    expect(outcome.get(`${ns}/stuck`)).toBe('aborted');
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(3000);
    expect(client.openWatches).toBe(0);
  });
});
