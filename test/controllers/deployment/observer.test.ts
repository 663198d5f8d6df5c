// The batched observer against the emulator over HTTP: reads coalesce into one call per 100 ids; and
// against a real HTTP server that answers what a test says: one bad item hides none of the others.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeploymentObserver, sightings } from '../../../src/controllers/deployment/observer.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { type RejectedItem, ServiceClient } from '../../../src/service/client.ts';
import { ServiceContractError } from '../../../src/service/errors.ts';
import type { Deployment } from '../../../src/service/wire.ts';
import { deploymentBody, type HttpStub, json, startStub } from '../../service/http-stub.ts';

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

const idOf = (i: number) => `eeeeeeee-0000-4000-8000-${String(i).padStart(12, '0')}`;
const body = (id: string) => ({ ...deploymentBody, id, name: `d-${id.slice(-4)}` });

describe('DeploymentObserver, when an item of the answer breaks the contract', () => {
  let stub: HttpStub;
  let client: ServiceClient;
  /** What the service answers for an id: its body, or undefined when it does not have it. */
  let item: (id: string) => unknown;
  const ids = Array.from({ length: 100 }, (_, i) => idOf(i));

  beforeAll(async () => {
    stub = await startStub((req, res) => {
      const asked = new URL(req.url, stub.url).searchParams.get('deployment_ids')?.split(',') ?? [];
      const resources = asked.map((id) => item(id)).filter((x) => x !== undefined);
      json(res, 200, { resources, offset: resources.length });
    });
    client = new ServiceClient({ baseUrl: stub.url, apiKey: 'k' });
  });
  afterEach(() => {
    stub.requests.length = 0;
  });
  afterAll(async () => {
    await client.close();
    await stub.close();
  });

  const observer = (onChange: (id: string) => void = () => {}) =>
    new DeploymentObserver(client, { resyncMs: 60_000, onChange, liveIds: () => ids });

  it('returns the 99 good deployments and fails the read of the bad one with its path, not "gone"', async () => {
    const bad = ids[42]!;
    item = (id) =>
      id === bad
        ? { ...body(id), source_config: { deployment_type: 7 } }
        : id === ids[3]
          ? { ...body(id), status: 'AWAITING_FINAL_DELETE', source_config: { deployment_type: 'dev_zero' } }
          : body(id);
    const o = observer();
    const reads = await Promise.allSettled(ids.map((id) => o.get(id, 0)));
    expect(stub.requests).toHaveLength(1);
    const good = reads.filter((r) => r.status === 'fulfilled').map((r) => (r.value as Deployment).id);
    expect(good).toEqual(ids.filter((id) => id !== bad));
    expect((reads[3] as PromiseFulfilledResult<Deployment>).value).toMatchObject({
      status: 'AWAITING_FINAL_DELETE',
      source_config: { deployment_type: 'dev_zero' },
    });
    const failed = reads[42] as PromiseRejectedResult;
    expect(failed.status).toBe('rejected');
    expect(failed.reason).toBeInstanceOf(ServiceContractError);
    expect((failed.reason as ServiceContractError).contractIssues.map((i) => i.path)).toEqual([
      'resources[42].source_config.deployment_type',
    ]);
    expect((failed.reason as Error).message).toContain('GET /v2/deployments');
    // Served from memory like any fresh read: the same error, no call.
    await expect(o.get(bad, 60_000)).rejects.toBe(failed.reason);
    expect(stub.requests).toHaveLength(1);
  });

  it('fails the reads of ids the answer lacks when a bad item cannot be told apart', async () => {
    const [a, b, c] = [idOf(200), idOf(201), idOf(202)];
    // b's item has no id; c is not on the service. Either may be the item without an id.
    item = (id) => (id === a ? body(id) : id === b ? { ...body(id), id: undefined } : undefined);
    const o = observer();
    const [ra, rb, rc] = await Promise.allSettled([a, b, c].map((id) => o.get(id, 0)));
    expect(ra).toMatchObject({ status: 'fulfilled', value: { id: a } });
    expect(rb).toMatchObject({ status: 'rejected', reason: expect.any(ServiceContractError) });
    expect(rc).toMatchObject({ status: 'rejected', reason: expect.any(ServiceContractError) });
    // With nothing unreadable, an id the answer lacks is gone.
    item = (id) => (id === a ? body(id) : undefined);
    await expect(observer().get(c, 0)).resolves.toBeNull();
  });

  it('wakes the owner when an item turns unreadable, and again when it is readable once more', async () => {
    const changed: string[] = [];
    const o = observer((id) => changed.push(id));
    item = body;
    await Promise.all(ids.map((id) => o.get(id, 0)));
    item = (id) => (id === ids[7] ? { ...body(id), created_at: 'yesterday' } : body(id));
    await o.refreshAll();
    expect(changed).toEqual([ids[7]]);
    await expect(o.get(ids[7]!, 60_000)).rejects.toThrow(/resources\[7\]\.created_at/);
    item = body;
    await o.refreshAll();
    expect(changed).toEqual([ids[7], ids[7]]);
    await expect(o.get(ids[7]!, 60_000)).resolves.toMatchObject({ id: ids[7] });
  });
});

describe('sightings', () => {
  const d = (id: string) => ({ id }) as Deployment;
  const rejected = (index: number, id?: string): RejectedItem => ({
    index,
    id,
    name: undefined,
    error: new ServiceContractError({
      status: 200,
      endpoint: 'GET /v2/deployments',
      path: '/v2/deployments',
      attempts: 1,
      contractIssues: [{ path: `resources[${index}].status`, message: 'bad' }],
    }),
  });
  const kinds = (m: Map<string, unknown>) =>
    Object.fromEntries(
      [...m].map(([id, s]) => [
        id,
        'error' in (s as object)
          ? 'error'
          : (s as { deployment: Deployment | null }).deployment
            ? 'found'
            : 'gone',
      ]),
    );

  it('ties a bad item to its id, and calls an absent id gone only when every bad item is told apart', () => {
    const page = { resources: [d('a')], offset: 3, rejected: [rejected(1, 'b')] };
    expect(kinds(sightings(['a', 'b', 'c'], page))).toEqual({ a: 'found', b: 'error', c: 'gone' });
    const untold = { ...page, rejected: [rejected(1, 'b'), rejected(2)] };
    expect(kinds(sightings(['a', 'b', 'c'], untold))).toEqual({ a: 'found', b: 'error', c: 'error' });
    const stranger = { ...page, rejected: [rejected(1, 'not-asked')] };
    expect(kinds(sightings(['a', 'c'], stranger))).toEqual({ a: 'found', c: 'error' });
  });
});
