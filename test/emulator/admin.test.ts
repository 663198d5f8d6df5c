import { describe, expect, it } from 'vitest';
import { client, createBody, ids, useEmulator } from './support.ts';

const t = useEmulator({ stepMs: 60_000 });

describe('GET /_emulator/state', () => {
  it('dumps deployments with revisions, projects, listeners, connections, tokens and call counts per template', async () => {
    const d = (await t.api.post('/v2/deployments', createBody('s1'))).body;
    await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:2' } });
    await t.api.get(`/v2/deployments/${d.id}/revisions`);
    await t.api.get(`/v2/deployments/${d.id}/revisions?limit=1`);
    await t.api.get('/v2/deployments?limit=500'); // 422 still counts
    await t.api.get('/v2/nothing-here'); // not an interface route
    await t.api.post('/v2/auth/agents/a1/connections', { oauth_token_id: ids.githubToken });
    const state = (await t.admin.get('/_emulator/state')).body;
    expect(state.deployments).toHaveLength(1);
    expect(state.deployments[0]).toMatchObject({ id: d.id, name: 's1', tenant_id: ids.tenant });
    expect(state.deployments[0].revisions.map((r: { status: string }) => r.status)).toEqual([
      'CREATING',
      'SKIPPED',
    ]);
    expect(state.tracing_projects).toEqual([{ name: 's1', tenant_id: ids.tenant, deployment_id: d.id }]);
    expect(state.listeners).toEqual([expect.objectContaining({ id: ids.listener, tenant_id: ids.tenant })]);
    expect(state.connections).toHaveLength(1);
    expect(state.tokens.map((x: { id: string }) => x.id)).toEqual([ids.githubToken, ids.googleToken]);
    expect(state.calls).toEqual({
      'POST /v2/deployments': 1,
      'PATCH /v2/deployments/{deployment_id}': 1,
      'GET /v2/deployments/{deployment_id}/revisions': 2,
      'GET /v2/deployments': 1,
      'POST /v2/auth/agents/{agent_id}/connections': 1,
    });
  });

  it('zeroes only the call counters on /calls/reset and everything on /reset', async () => {
    await t.api.post('/v2/deployments', createBody('kept'));
    expect((await t.admin.post('/_emulator/calls/reset')).status).toBe(204);
    let state = (await t.admin.get('/_emulator/state')).body;
    expect(state.calls).toEqual({});
    expect(state.deployments).toHaveLength(1);
    await t.api.patch(`/v2/auth/tokens/${ids.githubToken}/metadata`, { provider_account_label: 'changed' });
    expect((await t.admin.post('/_emulator/reset')).status).toBe(204);
    state = (await t.admin.get('/_emulator/state')).body;
    expect(state.deployments).toEqual([]);
    expect(state.tracing_projects).toEqual([]);
    expect(state.tokens[0].provider_account_label).toBe('dev@github');
    expect(state.calls).toEqual({});
  });

  it('counts answers by status, rejected keys included, and zeroes them with the call counters', async () => {
    await t.api.get('/v2/auth/providers');
    await client(t.emu.url, 'not-a-key').get('/v2/auth/providers');
    await client(t.emu.url, null).get('/v2/deployments');
    await t.api.get('/v2/deployments?limit=500');
    expect((await t.admin.get('/_emulator/state')).body.responses).toEqual({ '200': 1, '401': 2, '422': 1 });
    await t.admin.post('/_emulator/calls/reset');
    expect((await t.admin.get('/_emulator/state')).body.responses).toEqual({});
  });

  it('moves the clock forward and validates the request', async () => {
    const before = Date.parse((await t.admin.get('/_emulator/state')).body.now);
    const res = await t.admin.post('/_emulator/clock', { advance_ms: 3_600_000 });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.now) - before).toBeGreaterThanOrEqual(3_600_000);
    expect((await t.admin.post('/_emulator/clock', { advance_ms: -1 })).status).toBe(422);
  });
});

describe('faults', () => {
  it('error_rate 1 fails every interface call without changing state; DELETE recovers', async () => {
    const set = await t.admin.post('/_emulator/faults', { error_rate: 1, statuses: [503], retry_after_s: 7 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      error_rate: 1,
      statuses: [503],
      retry_after_s: 7,
      reset_rate: 0,
      latency_ms: 0,
    });
    const res = await t.api.post('/v2/deployments', createBody('faulted'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(typeof res.body.detail).toBe('string');
    expect((await t.api.get('/v2/auth/providers')).status).toBe(503);
    const state = (await t.admin.get('/_emulator/state')).body; // the admin surface is never faulted
    expect(state.deployments).toEqual([]);
    expect(state.calls).toEqual({ 'POST /v2/deployments': 1, 'GET /v2/auth/providers': 1 });
    expect((await t.admin.delete('/_emulator/faults')).status).toBe(204);
    expect((await t.api.post('/v2/deployments', createBody('faulted'))).status).toBe(201);
  });

  it('uses the default statuses and sends Retry-After only on 429 and 503', async () => {
    await t.admin.post('/_emulator/faults', { error_rate: 1 });
    const seen = new Map<number, string | null>();
    for (let i = 0; i < 40; i++) {
      const res = await t.api.get('/v2/listeners');
      seen.set(res.status, res.headers.get('retry-after'));
    }
    expect([...seen.keys()].sort()).toEqual([500, 502, 503]);
    expect(seen.get(503)).toBe('1');
    expect(seen.get(500)).toBeNull();
    await t.admin.post('/_emulator/faults', { error_rate: 1, statuses: [429], retry_after_s: 2 });
    const limited = await t.api.get('/v2/listeners');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '2']);
  });

  it('reset_rate 1 drops the connection without an answer', async () => {
    await t.admin.post('/_emulator/faults', { reset_rate: 1 });
    await expect(t.api.post('/v2/deployments', createBody('dropped'))).rejects.toThrow();
    await t.admin.delete('/_emulator/faults');
    expect((await t.admin.get('/_emulator/state')).body.deployments).toEqual([]);
    expect((await t.api.get('/v2/deployments')).status).toBe(200);
  });

  it('adds latency and can be limited to some paths', async () => {
    await t.admin.post('/_emulator/faults', {
      latency_ms: 150,
      error_rate: 1,
      paths: ['GET /v2/listeners', '/v2/auth/providers'],
    });
    const start = performance.now();
    expect((await t.api.get('/v2/listeners')).status).toBeGreaterThanOrEqual(500);
    expect(performance.now() - start).toBeGreaterThanOrEqual(140);
    expect((await t.api.get('/v2/auth/providers')).status).toBeGreaterThanOrEqual(500);
    expect(
      (await t.api.post('/v2/listeners', { compute_type: 'k8s', compute_id: 'x', compute_config: {} }))
        .status,
    ).toBe(201);
    expect((await t.api.get(`/v2/listeners/${ids.listener}`)).status).toBe(200);
  });

  it('rejects an invalid fault configuration', async () => {
    const res = await t.admin.post('/_emulator/faults', { error_rate: 2, typo: true });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((i: { loc: string[] }) => i.loc.at(-1)).sort()).toEqual([
      'error_rate',
      'typo',
    ]);
    expect((await t.admin.get('/_emulator/state')).body.faults).toBeNull();
  });
});
