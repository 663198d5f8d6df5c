import { describe, expect, it } from 'vitest';
import { defaultSeed } from '../../src/emulator/seed.ts';
import { Deployment } from '../../src/service/wire.ts';
import { advance, createBody, getDeployment, ids, revisions, useEmulator } from './support.ts';

describe('self-hosted mode under /api', () => {
  const t = useEmulator({ mode: 'self-hosted', pathPrefix: '/api', stepMs: 0 });

  it('serves the interface under the prefix and the admin surface at the origin', async () => {
    expect(t.emu.url).toBe(`${t.emu.adminUrl}/api`);
    expect((await t.api.get('/v2/auth/providers')).status).toBe(200);
    const unprefixed = await fetch(`${t.emu.adminUrl}/v2/auth/providers`, {
      headers: { 'x-api-key': 'dev-key' },
    });
    expect(unprefixed.status).toBe(404);
    expect((await t.admin.get('/_emulator/state')).status).toBe(200);
  });

  it('accepts only external_docker, with secret_references', async () => {
    for (const source of ['codehost', 'internal_docker', 'internal_source', 'internal_template']) {
      const res = await t.api.post('/v2/deployments', createBody(`x-${source}`, source));
      expect(res.status, source).toBe(400);
      expect(res.body.detail).toContain(source);
    }
    const refs = [{ name: 'DB_URL', secret_name: 'db', secret_key: 'url' }];
    const res = await t.api.post(
      '/v2/deployments',
      createBody('ext', 'external_docker', { secret_references: refs }),
    );
    expect(res.status).toBe(201);
    const d = Deployment.parse(res.body);
    expect(d.secret_references).toEqual(refs);
    expect(d).toMatchObject({ status: 'READY', image_version: '1.0.0-self-hosted' });
    const patched = await t.api.patch(`/v2/deployments/${d.id}`, { revision_source: 'internal_docker' });
    expect(patched.status).toBe(400);
    expect(patched.body.detail).toContain('revision_source');
    const missing = await t.api.post(
      '/v2/deployments',
      createBody('no-image', 'external_docker', { source_revision_config: {} }),
    );
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'source_revision_config', 'image_uri']);
  });

  it('with stepMs 0 revisions are terminal at once and DELETE removes at once', async () => {
    const d = Deployment.parse(
      (await t.api.post('/v2/deployments', createBody('now', 'external_docker'))).body,
    );
    expect(d.active_revision_id).toBe(d.latest_revision_id);
    const failed = await t.api.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { image_uri: 'x/fail-deploy' },
    });
    expect((await revisions(t.api, d.id)).map((r) => r.status)).toEqual(['DEPLOY_FAILED', 'DEPLOYED']);
    expect(failed.body.active_revision_id).toBe(d.latest_revision_id);
    expect((await t.api.delete(`/v2/deployments/${d.id}`)).status).toBe(204);
    expect((await getDeployment(t.api, d.id)).status).toBe(404);
    expect((await t.admin.get('/_emulator/state')).body.tracing_projects).toEqual([]);
  });
});

describe('busy: reject', () => {
  const t = useEmulator({ busy: 'reject', stepMs: 60_000 });

  it('answers 409 to a new revision while one is in flight and changes nothing', async () => {
    const d = Deployment.parse((await t.api.post('/v2/deployments', createBody('r'))).body);
    const res = await t.api.patch(`/v2/deployments/${d.id}`, {
      source_config: { build_on_push: true },
      source_revision_config: { image_uri: 'app:2' },
    });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain(d.latest_revision_id);
    const now = Deployment.parse((await getDeployment(t.api, d.id)).body);
    expect(now).toMatchObject({
      latest_revision_id: d.latest_revision_id,
      source_config: { build_on_push: null },
    });
    expect(await revisions(t.api, d.id)).toHaveLength(1);
    // A change that needs no revision still goes through, and a revision is accepted once the first is done.
    expect(
      (await t.api.patch(`/v2/deployments/${d.id}`, { source_config: { build_on_push: true } })).status,
    ).toBe(200);
    await advance(t.admin, 6 * 60_000);
    expect(
      (await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:2' } }))
        .status,
    ).toBe(200);
  });
});

describe('real time with a small step', () => {
  const t = useEmulator({ stepMs: 20 });

  it('reaches READY by itself', async () => {
    const d = Deployment.parse((await t.api.post('/v2/deployments', createBody('rt'))).body);
    expect(d.status).toBe('AWAITING_DATABASE');
    let status = d.status;
    for (let i = 0; i < 100 && status !== 'READY'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await getDeployment(t.api, d.id)).body.status;
    }
    expect(status).toBe('READY');
    expect((await revisions(t.api, d.id))[0]!.status).toBe('DEPLOYED');
  });
});

describe('seeded tags and tracing projects', () => {
  const t = useEmulator({
    stepMs: 0,
    seed: {
      ...defaultSeed,
      tracing_projects: ['existing-project', { name: 'other-only', tenant_id: ids.otherTenant }],
      tags: { tagged: ['tv-1', 'tv-2'], 'also-tagged': ['tv-2'] },
    },
  });

  it('filters by tag_value_ids (any of)', async () => {
    for (const name of ['tagged', 'also-tagged', 'plain'])
      await t.api.post('/v2/deployments', createBody(name));
    const names = async (q: string) =>
      (await t.api.get(`/v2/deployments?tag_value_ids=${q}`)).body.resources.map(
        (d: { name: string }) => d.name,
      );
    expect(await names('tv-1')).toEqual(['tagged']);
    expect(await names('tv-2')).toEqual(['also-tagged', 'tagged']);
    expect(await names('tv-1,tv-3')).toEqual(['tagged']);
    expect(await names('tv-3')).toEqual([]);
  });

  it('refuses a name used by an existing tracing project of the tenant', async () => {
    const res = await t.api.post('/v2/deployments', createBody('existing-project'));
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('existing-project');
    expect((await t.api.post('/v2/deployments', createBody('other-only'))).status).toBe(201);
  });
});
