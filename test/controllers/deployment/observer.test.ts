// The batched observer against the emulator over HTTP: reads coalesce into one call per 100 ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeploymentObserver } from '../../../src/controllers/deployment/observer.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';

describe('DeploymentObserver', () => {
  let emu: RunningEmulator;
  let client: ServiceClient;
  const ids: string[] = [];
  const listCalls = async () =>
    ((await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as { calls: Record<string, number> })
      .calls['GET /v2/deployments'] ?? 0;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, stepMs: 0 });
    client = new ServiceClient({ baseUrl: emu.url, apiKey: 'dev-key' });
    for (let i = 0; i < 150; i++) {
      ids.push(
        (
          await client.createDeployment({
            name: `obs-${i}`,
            source: 'internal_docker',
            source_config: {},
            source_revision_config: { image_uri: 'a:1' },
            secrets: [],
          })
        ).id,
      );
    }
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  it('coalesces concurrent reads into one list call per 100 ids', async () => {
    const observer = new DeploymentObserver(client, {
      resyncMs: 60_000,
      onChange: () => {},
      liveIds: () => [],
    });
    const before = await listCalls();
    const got = await Promise.all(
      [...ids, '00000000-0000-4000-8000-000000000000'].map((id) => observer.get(id, 0)),
    );
    expect(await listCalls()).toBe(before + 2);
    expect(got.slice(0, 150).map((d) => d?.id)).toEqual(ids);
    expect(got[150]).toBeNull(); // not on the service
    // Fresh enough: served from memory.
    await observer.get(ids[0]!, 60_000);
    expect(await listCalls()).toBe(before + 2);
  });

  it('refreshes every live id in ⌈N/100⌉ calls and reports only the changed ones', async () => {
    const changed: string[] = [];
    const observer = new DeploymentObserver(client, {
      resyncMs: 60_000,
      onChange: (id) => changed.push(id),
      liveIds: () => ids,
    });
    await Promise.all(ids.map((id) => observer.get(id, 0)));
    await client.patchDeployment(ids[7]!, { source_revision_config: { image_uri: 'a:2' } });
    const before = await listCalls();
    await observer.refreshAll();
    expect(await listCalls()).toBe(before + 2);
    expect(changed).toEqual([ids[7]]);
  });

  it('fills a read with known ids never read, so a fresh start costs ⌈N/100⌉ calls', async () => {
    const observer = new DeploymentObserver(client, {
      resyncMs: 60_000,
      onChange: () => {},
      liveIds: () => ids,
    });
    const before = await listCalls();
    // Reconciles ask a few at a time, as the work queue's workers do after a restart.
    for (let i = 0; i < ids.length; i += 4)
      await Promise.all(ids.slice(i, i + 4).map((id) => observer.get(id, 60_000)));
    expect(await listCalls()).toBe(before + 2);
  });

  it('forgets ids no resource refers to: a refresh after churn reads only the live ones', async () => {
    let live = [...ids];
    const refreshed: number[] = [];
    const observer = new DeploymentObserver(client, {
      resyncMs: 60_000,
      onChange: () => {},
      liveIds: () => live,
      onRefresh: (n) => refreshed.push(n),
    });
    await Promise.all(ids.map((id) => observer.get(id, 0)));
    live = ids.slice(0, 40); // 110 resources deleted
    const before = await listCalls();
    await observer.refreshAll();
    expect(await listCalls()).toBe(before + 1);
    expect(refreshed).toEqual([40]);
    // What was dropped is read again only when asked for.
    await observer.get(ids[120]!, 60_000);
    expect(await listCalls()).toBe(before + 2);
  });
});
