// The hosted profile: each behaviour of the hosted service that the interface does not list, next to
// what the interface profile (the default) answers for the same requests.
import { describe, expect, it } from 'vitest';
import {
  deletionPhaseAt,
  detourOf,
  hostedDetourMarkers,
  hostedOutcomeMarkers,
  isInFlightAt,
  outcomeOf,
  revisionStateAt,
} from '../../src/emulator/lifecycle.ts';
import { HostedDeployment } from '../../src/emulator/profile-wire.ts';
import { hostedDeletionStepMs } from '../../src/emulator/profiles.ts';
import { startEmulator } from '../../src/emulator/server.ts';
import { mergeKeeping } from '../../src/emulator/validate.ts';
import { Revision } from '../../src/service/wire.ts';
import { type Api, advance, client, createBody, ids, keys, revisions, useEmulator } from './support.ts';

const step = 60_000;
const hosted = useEmulator({ profile: 'hosted', stepMs: step });
const plain = useEmulator({ stepMs: step });

async function create(api: Api, name: string, over: Record<string, unknown> = {}) {
  const res = await api.post('/v2/deployments', createBody(name, 'internal_docker', over));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return HostedDeployment.parse(res.body);
}

const statuses = async (api: Api, id: string) => (await revisions(api, id)).map((r) => r.status);
const one = (api: Api, id: string) => api.get(`/v2/deployments/${id}`);
const listed = async (api: Api, query = '') =>
  (await api.get(`/v2/deployments?limit=100${query}`)).body.resources as { id: string; status: string }[];

describe('hosted profile', () => {
  it('accepts and answers the deployment types dev_zero and dev_free_zero', async () => {
    const zero = await create(hosted.api, 'zero', { source_config: { deployment_type: 'dev_zero' } });
    const free = await create(hosted.api, 'free', { source_config: { deployment_type: 'dev_free_zero' } });
    expect(zero.source_config.deployment_type).toBe('dev_zero');
    expect(free.source_config.deployment_type).toBe('dev_free_zero');
    expect((await listed(hosted.api, '&deployment_type=dev_free_zero')).map((d) => d.id)).toEqual([free.id]);
    expect((await one(hosted.api, zero.id)).body.source_config.deployment_type).toBe('dev_zero');
    // The interface profile knows only dev_free, dev and prod.
    const refused = await plain.api.post(
      '/v2/deployments',
      createBody('zero', 'internal_docker', { source_config: { deployment_type: 'dev_zero' } }),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'source_config', 'deployment_type']);
    expect((await plain.api.get('/v2/deployments?deployment_type=dev_zero')).status).toBe(422);
  });

  it('deletes in two phases, AWAITING_DELETE then AWAITING_FINAL_DELETE, one step each', async () => {
    const d = await create(hosted.api, 'doomed');
    await advance(hosted.admin, 3 * step); // BUILDING
    const del = await hosted.api.delete(`/v2/deployments/${d.id}`);
    expect([del.status, del.body]).toEqual([204, undefined]);
    expect((await one(hosted.api, d.id)).body.status).toBe('AWAITING_DELETE');
    expect((await statuses(hosted.api, d.id))[0]).toBe('INTERRUPTED');
    await advance(hosted.admin, step);
    expect((await one(hosted.api, d.id)).body.status).toBe('AWAITING_FINAL_DELETE');
    expect((await listed(hosted.api, '&status=AWAITING_FINAL_DELETE')).map((x) => x.id)).toEqual([d.id]);
    // A second DELETE is accepted and does not restart the deletion; PATCH is refused.
    expect((await hosted.api.delete(`/v2/deployments/${d.id}`)).status).toBe(204);
    const patch = await hosted.api.patch(`/v2/deployments/${d.id}`, { source_config: { custom_url: 'x' } });
    expect(patch.status).toBe(409);
    expect((await hosted.api.post('/v2/deployments', createBody('doomed'))).status).toBe(409);
    await advance(hosted.admin, step);
    expect((await one(hosted.api, d.id)).status).toBe(404);
    expect(await listed(hosted.api)).toEqual([]);
    expect((await hosted.api.delete(`/v2/deployments/${d.id}`)).status).toBe(404);
    expect((await hosted.api.post('/v2/deployments', createBody('doomed'))).status).toBe(201);
  });

  it('stores listener_config but never answers it', async () => {
    const listener = { listener_id: ids.listener, listener_config: { k8s_namespace: 'agents' } };
    const d = await create(hosted.api, 'remote', { source_config: listener });
    expect(d.source_config.listener_id).toBe(ids.listener);
    expect(d.source_config).not.toHaveProperty('listener_config');
    const path = `/v2/deployments/${d.id}`;
    const same = await hosted.api.patch(path, {
      source_config: { listener_config: { k8s_namespace: 'agents' } },
    });
    expect(same.status).toBe(200);
    expect(same.body.source_config).not.toHaveProperty('listener_config');
    // Stored: a different value is still the immutable-field error.
    const other = await hosted.api.patch(path, {
      source_config: { listener_config: { k8s_namespace: 'x' } },
    });
    expect(other.status).toBe(400);
    expect((await one(hosted.api, d.id)).body.source_config).not.toHaveProperty('listener_config');
    expect((await listed(hosted.api))[0]).not.toHaveProperty('source_config.listener_config');
    const dump = (await hosted.admin.get('/_emulator/state')).body.deployments[0];
    expect(dump.source_config).not.toHaveProperty('listener_config');
    // The interface profile answers it.
    const shown = await create(plain.api, 'remote', { source_config: listener });
    expect(shown.source_config.listener_config).toEqual({ k8s_namespace: 'agents' });
  });

  it('keeps custom_url and build_on_push once set: a PATCH null leaves them, a value replaces them', async () => {
    const set = { custom_url: 'agent.example.com', build_on_push: true };
    const d = await create(hosted.api, 'sticky', { source_config: set });
    const path = `/v2/deployments/${d.id}`;
    const cleared = await hosted.api.patch(path, {
      source_config: { custom_url: null, build_on_push: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.source_config).toMatchObject(set);
    expect(cleared.body.updated_at).toBe(d.updated_at);
    const changed = await hosted.api.patch(path, {
      source_config: { custom_url: 'b.example.com', build_on_push: false },
    });
    expect(changed.body.source_config).toMatchObject({ custom_url: 'b.example.com', build_on_push: false });
    await hosted.api.patch(path, { source_config: { build_on_push: null, install_command: 'npm ci' } });
    expect((await one(hosted.api, d.id)).body.source_config).toMatchObject({
      custom_url: 'b.example.com',
      build_on_push: false,
      install_command: 'npm ci',
    });
    // Other fields still clear with null, and so do these two under the interface profile.
    await hosted.api.patch(path, { source_config: { install_command: null } });
    expect((await one(hosted.api, d.id)).body.source_config.install_command).toBeNull();
    const p = await create(plain.api, 'sticky', { source_config: set });
    const plainCleared = await plain.api.patch(`/v2/deployments/${p.id}`, {
      source_config: { custom_url: null, build_on_push: null },
    });
    expect(plainCleared.body.source_config).toMatchObject({ custom_url: null, build_on_push: null });
  });

  it('serves one deployment and one revision by id; the interface profile does not', async () => {
    const d = await create(hosted.api, 'by-id');
    await hosted.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:2' } });
    const got = await one(hosted.api, d.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual((await listed(hosted.api))[0]);
    const [latest, first] = await revisions(hosted.api, d.id);
    const rev = await hosted.api.get(`/v2/deployments/${d.id}/revisions/${first!.id}`);
    expect(rev.status).toBe(200);
    expect(Revision.parse(rev.body)).toEqual(first);
    expect(got.body.latest_revision_id).toBe(latest!.id);
    const unknown = '99999999-0000-4000-8000-000000000001';
    expect((await one(hosted.api, unknown)).status).toBe(404);
    expect((await hosted.api.get(`/v2/deployments/${d.id}/revisions/${unknown}`)).status).toBe(404);
    expect((await hosted.api.get(`/v2/deployments/${d.id}/revisions/nope`)).status).toBe(422);
    const other = client(hosted.emu.url, keys.otherTenant);
    expect((await one(other, d.id)).status).toBe(404);
    expect((await other.get(`/v2/deployments/${d.id}/revisions/${first!.id}`)).status).toBe(404);
    // A revision is found only under its own deployment.
    const e = await create(hosted.api, 'elsewhere');
    expect((await hosted.api.get(`/v2/deployments/${e.id}/revisions/${first!.id}`)).status).toBe(404);
    expect((await hosted.admin.get('/_emulator/state')).body.calls).toMatchObject({
      'GET /v2/deployments/{deployment_id}': 3,
      'GET /v2/deployments/{deployment_id}/revisions/{revision_id}': 5,
    });
    const p = await create(plain.api, 'by-id');
    expect(await one(plain.api, p.id)).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    const plainRev = await plain.api.get(`/v2/deployments/${p.id}/revisions/${p.latest_revision_id}`);
    expect(plainRev).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
  });

  it('ends a superseded revision SKIPPED, also after its build started', async () => {
    const d = await create(hosted.api, 'superseded');
    await advance(hosted.admin, 3 * step); // BUILDING
    await hosted.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:2' } });
    expect(await statuses(hosted.api, d.id)).toEqual(['CREATING', 'SKIPPED']);
    const p = await create(plain.api, 'superseded');
    await advance(plain.admin, 3 * step);
    await plain.api.patch(`/v2/deployments/${p.id}`, { source_revision_config: { image_uri: 'app:2' } });
    expect(await statuses(plain.api, p.id)).toEqual(['CREATING', 'INTERRUPTED']);
  });

  it('ends a revision marked skip-deploy SKIPPED after DEPLOYING, leaving nothing active', async () => {
    const d = await create(hosted.api, 'skipped', {
      source_revision_config: { image_uri: 'reg/skip-deploy:1' },
    });
    await advance(hosted.admin, 5 * step);
    expect(await statuses(hosted.api, d.id)).toEqual(['DEPLOYING']);
    await advance(hosted.admin, step);
    expect(await statuses(hosted.api, d.id)).toEqual(['SKIPPED']);
    expect((await one(hosted.api, d.id)).body).toMatchObject({
      status: 'AWAITING_DATABASE',
      active_revision_id: null,
    });
    const p = await create(plain.api, 'skipped', {
      source_revision_config: { image_uri: 'reg/skip-deploy:1' },
    });
    await advance(plain.admin, 6 * step);
    expect(await statuses(plain.api, p.id)).toEqual(['DEPLOYED']);
  });

  it('passes a revision marked flaky-status through UNKNOWN, and flaky-interrupt through INTERRUPTED, for one step', async () => {
    const flaky = await create(hosted.api, 'flaky', {
      source_revision_config: { image_uri: 'reg/flaky-status:1' },
    });
    const bumpy = await create(hosted.api, 'bumpy', {
      source_revision_config: { image_uri: 'reg/flaky-interrupt:1' },
    });
    const seen: [string[], string[]] = [[], []];
    for (let i = 0; i < 8; i++) {
      seen[0].push((await statuses(hosted.api, flaky.id))[0]!);
      seen[1].push((await statuses(hosted.api, bumpy.id))[0]!);
      await advance(hosted.admin, step);
    }
    const around = (detour: string) => [
      'CREATING',
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      detour,
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ];
    expect(seen).toEqual([around('UNKNOWN'), around('INTERRUPTED')]);
    expect((await one(hosted.api, bumpy.id)).body.status).toBe('READY');
  });

  it('treats a transient INTERRUPTED as still in flight', async () => {
    const reject = await startEmulator({ port: 0, profile: 'hosted', busy: 'reject', stepMs: step });
    try {
      const api = client(reject.url);
      const admin = client(reject.adminUrl, null);
      const d = await create(api, 'bumpy', {
        source_revision_config: { image_uri: 'reg/flaky-interrupt:1' },
      });
      await advance(admin, 4 * step);
      expect(await statuses(api, d.id)).toEqual(['INTERRUPTED']);
      const busy = await api.patch(`/v2/deployments/${d.id}`, {
        source_revision_config: { image_uri: 'app:2' },
      });
      expect(busy.status).toBe(409);
    } finally {
      await reject.close();
    }
  });

  it('shows its profile in the state dump', async () => {
    expect((await hosted.admin.get('/_emulator/state')).body.profile).toBe('hosted');
    expect((await plain.admin.get('/_emulator/state')).body.profile).toBe('interface');
  });
});

describe('hosted profile, self-hosted, stepMs 0', () => {
  const t = useEmulator({ profile: 'hosted', mode: 'self-hosted', stepMs: 0 });

  it('serves the API under /api-host unless a prefix is given', async () => {
    expect(t.emu.url).toBe(`${t.emu.adminUrl}/api-host`);
    expect((await t.api.get('/v2/auth/providers')).status).toBe(200);
    const explicit = await startEmulator({
      port: 0,
      profile: 'hosted',
      mode: 'self-hosted',
      pathPrefix: '/api',
    });
    const cloud = await startEmulator({ port: 0, profile: 'hosted' });
    const plainSelfHosted = await startEmulator({ port: 0, mode: 'self-hosted' });
    try {
      expect(explicit.url).toBe(`${explicit.adminUrl}/api`);
      expect(cloud.url).toBe(cloud.adminUrl);
      expect(plainSelfHosted.url).toBe(plainSelfHosted.adminUrl);
    } finally {
      await Promise.all([explicit.close(), cloud.close(), plainSelfHosted.close()]);
    }
  });

  it(`keeps each deletion phase for ${hostedDeletionStepMs} ms`, async () => {
    const d = await create(t.api, 'quick', { source: 'external_docker' });
    expect(d.status).toBe('READY');
    expect((await t.api.delete(`/v2/deployments/${d.id}`)).status).toBe(204);
    expect((await one(t.api, d.id)).body.status).toBe('AWAITING_DELETE');
    await advance(t.admin, hostedDeletionStepMs);
    expect((await one(t.api, d.id)).body.status).toBe('AWAITING_FINAL_DELETE');
    await advance(t.admin, hostedDeletionStepMs);
    expect((await one(t.api, d.id)).status).toBe(404);
  });
});

describe('the hosted rules as pure functions', () => {
  it('steps through deletion phases, picks markers, detours and keeps fields', () => {
    const phases = ['AWAITING_DELETE', 'AWAITING_FINAL_DELETE'];
    expect([0, 99, 100, 199, 200].map((t) => deletionPhaseAt(phases, 0, 100, t))).toEqual([
      'AWAITING_DELETE',
      'AWAITING_DELETE',
      'AWAITING_FINAL_DELETE',
      'AWAITING_FINAL_DELETE',
      null,
    ]);
    expect(deletionPhaseAt(phases, 0, 0, 0)).toBeNull();
    expect(outcomeOf({ image_uri: 'skip-deploy' }, hostedOutcomeMarkers)).toBe('SKIPPED');
    expect(outcomeOf({ image_uri: 'skip-deploy/fail-build' }, hostedOutcomeMarkers)).toBe('BUILD_FAILED');
    expect(outcomeOf({ image_uri: 'skip-deploy' })).toBe('DEPLOYED');
    expect(detourOf({ graph_config_path: 'flaky-status.json' }, hostedDetourMarkers)).toBe('UNKNOWN');
    expect(detourOf({ graph_config_path: 'flaky-status.json' })).toBeNull();
    const rev = {
      startedAt: 0,
      outcome: 'DEPLOY_FAILED' as const,
      detour: 'INTERRUPTED' as const,
      stopped: null,
    };
    expect(revisionStateAt(rev, 10, 45)).toEqual({ status: 'INTERRUPTED', since: 40 });
    expect(isInFlightAt(rev, 10, 45)).toBe(true);
    expect(revisionStateAt(rev, 10, 999).status).toBe('DEPLOY_FAILED');
    expect(isInFlightAt(rev, 10, 999)).toBe(false);
    const stored: Record<string, unknown> = { custom_url: 'a', build_on_push: false, install_command: 'x' };
    expect(
      mergeKeeping(stored, { custom_url: null, build_on_push: null, install_command: null }, [
        'custom_url',
        'build_on_push',
      ]),
    ).toEqual({ custom_url: 'a', build_on_push: false, install_command: null });
  });
});
