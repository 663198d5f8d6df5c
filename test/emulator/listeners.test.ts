import { describe, expect, it } from 'vitest';
import { Listener, Page } from '../../src/service/wire.ts';
import { client, createBody, ids, keys, useEmulator } from './support.ts';

const t = useEmulator({ stepMs: 0 });
const newListener = (compute_id: string) => ({
  compute_type: 'k8s',
  compute_id,
  compute_config: { k8s_namespaces: ['ns-a'] },
});

describe('listeners', () => {
  it('lists the seed listener and gets it by id', async () => {
    const page = Page(Listener).parse((await t.api.get('/v2/listeners')).body);
    expect(page.resources.map((l) => l.id)).toEqual([ids.listener]);
    expect(page.offset).toBe(1);
    expect(page.resources[0]).not.toHaveProperty('tenant_id');
    const one = await t.api.get(`/v2/listeners/${ids.listener}`);
    expect(Listener.parse(one.body)).toMatchObject({ compute_id: 'dev-cluster', compute_type: 'k8s' });
    expect((await t.api.get('/v2/listeners/99999999-0000-4000-8000-000000000001')).status).toBe(404);
    expect((await t.api.get('/v2/listeners/nope')).body.detail[0]).toMatchObject({
      type: 'uuid_parsing',
      loc: ['path', 'listener_id'],
    });
  });

  it('creates (201), lists newest first with paging, patches compute_config (200) and deletes (204)', async () => {
    const res = await t.api.post('/v2/listeners', newListener('cluster-b'));
    expect(res.status).toBe(201);
    const l = Listener.parse(res.body);
    expect(l).toMatchObject({
      compute_id: 'cluster-b',
      compute_config: { k8s_namespaces: ['ns-a'] },
      version: '0.1.0',
    });
    expect((await t.api.get('/v2/listeners?limit=1')).body).toMatchObject({
      resources: [{ id: l.id }],
      offset: 1,
    });
    expect((await t.api.get('/v2/listeners?limit=1&offset=1')).body).toMatchObject({
      resources: [{ id: ids.listener }],
      offset: 2,
    });
    expect((await t.api.get('/v2/listeners?limit=0')).status).toBe(422);
    expect((await t.api.get('/v2/listeners?offset=-3')).status).toBe(422);

    const patched = await t.api.patch(`/v2/listeners/${l.id}`, {
      compute_config: { k8s_namespaces: ['ns-a', 'ns-b'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.compute_config).toEqual({ k8s_namespaces: ['ns-a', 'ns-b'] });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(l.updated_at));

    const del = await t.api.delete(`/v2/listeners/${l.id}`);
    expect(del.status).toBe(204);
    expect((await t.api.get(`/v2/listeners/${l.id}`)).status).toBe(404);
  });

  it('keeps compute_type and compute_id immutable and compute_id unique', async () => {
    const changed = await t.api.patch(`/v2/listeners/${ids.listener}`, {
      compute_id: 'renamed',
      compute_config: {},
    });
    expect(changed.status).toBe(400);
    expect(changed.body.detail).toContain('compute_id');
    const same = await t.api.patch(`/v2/listeners/${ids.listener}`, {
      compute_type: 'k8s',
      compute_id: 'dev-cluster',
      compute_config: { k8s_namespaces: ['x'] },
    });
    expect(same.status).toBe(200);
    expect((await t.api.post('/v2/listeners', newListener('dev-cluster'))).status).toBe(409);
    const bad = await t.api.post('/v2/listeners', { ...newListener('c'), compute_type: 'ecs' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'compute_type']);
  });

  it('refuses to delete a listener a deployment uses', async () => {
    await t.api.post(
      '/v2/deployments',
      createBody('on-listener', 'internal_docker', { source_config: { listener_id: ids.listener } }),
    );
    const res = await t.api.delete(`/v2/listeners/${ids.listener}`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('on-listener');
  });

  it('answers 403 to a plan that does not allow managing listeners, but lets it read', async () => {
    const basic = client(t.emu.url, keys.basicPlan);
    for (const res of [
      await basic.post('/v2/listeners', newListener('nope')),
      await basic.patch(`/v2/listeners/${ids.listener}`, { compute_config: {} }),
      await basic.delete(`/v2/listeners/${ids.listener}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.detail).toContain('plan does not allow');
    }
    expect((await basic.get('/v2/listeners')).body.resources).toHaveLength(1);
    expect((await t.admin.get('/_emulator/state')).body.listeners).toHaveLength(1);
  });

  it('isolates tenants', async () => {
    const other = client(t.emu.url, keys.otherTenant);
    expect((await other.get('/v2/listeners')).body).toEqual({ resources: [], offset: 0 });
    expect((await other.get(`/v2/listeners/${ids.listener}`)).status).toBe(404);
    expect((await other.patch(`/v2/listeners/${ids.listener}`, { compute_config: {} })).status).toBe(404);
    expect((await other.delete(`/v2/listeners/${ids.listener}`)).status).toBe(404);
    // The same compute_id is free in another tenant.
    expect((await other.post('/v2/listeners', newListener('dev-cluster'))).status).toBe(201);
  });
});
