import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type HealthServer, readyWhenStandingBy, startHealthServer } from '../../src/runtime/health.ts';
import { workqueueMetrics } from '../../src/runtime/metrics.ts';

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('health server', () => {
  it('serves /healthz, /readyz and /metrics from its checks and registry', async () => {
    let problems: string[] = ['informer 0: watch stale'];
    const registry = new Registry();
    workqueueMetrics(registry, 'things').added?.();
    server = await startHealthServer({ port: 0, registry, healthz: () => problems, readyz: () => [] });
    const base = `http://127.0.0.1:${server.port}`;
    const unhealthy = await fetch(`${base}/healthz`);
    expect(unhealthy.status).toBe(503);
    expect(await unhealthy.text()).toContain('watch stale');
    problems = [];
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('workqueue_adds_total{name="things"} 1');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('counts a standby as ready, and the leader only once its own check passes', () => {
    let leading = false;
    const check = readyWhenStandingBy(
      () => leading,
      () => ['deployment: caches not synced'],
    );
    expect(check()).toEqual([]);
    leading = true;
    expect(check()).toEqual(['deployment: caches not synced']);
  });
});
