import { describe, expect, it } from 'vitest';
import { Deployment, Page, Revision } from '../../src/service/wire.ts';
import {
  advance,
  client,
  createBody,
  getDeployment,
  ids,
  installedRepo,
  keys,
  managedRepo,
  revisions,
  useEmulator,
} from './support.ts';

const step = 60_000;
const t = useEmulator({ stepMs: step });

async function create(name: string, source = 'internal_docker', over: Record<string, unknown> = {}) {
  const res = await t.api.post('/v2/deployments', createBody(name, source, over));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return Deployment.parse(res.body);
}

describe('POST /v2/deployments', () => {
  it('creates the deployment, its first revision and a tracing project of the same name', async () => {
    const d = await create('alpha');
    expect(d).toMatchObject({
      name: 'alpha',
      tenant_id: ids.tenant,
      source: 'internal_docker',
      status: 'AWAITING_DATABASE',
      active_revision_id: null,
      image_version: null,
      secrets: [],
      source_revision_config: { image_uri: 'registry/app:1', repo_commit_sha: null },
    });
    const revs = await revisions(t.api, d.id);
    expect(revs).toHaveLength(1);
    expect(revs[0]).toMatchObject({
      id: d.latest_revision_id,
      status: 'CREATING',
      source: 'internal_docker',
    });
    const state = await t.admin.get('/_emulator/state');
    expect(state.body.tracing_projects).toEqual([
      { name: 'alpha', tenant_id: ids.tenant, deployment_id: d.id },
    ]);
  });

  it('returns secrets as stored', async () => {
    const secrets = [{ name: 'OPENAI_API_KEY', value: 'sk-test' }];
    const d = await create('with-secrets', 'internal_docker', { secrets });
    expect(d.secrets).toEqual(secrets);
  });

  it('accepts codehost from an installed or a managed integration and gives a deterministic commit sha', async () => {
    const a = await create('ch-a', 'codehost');
    const b = await create('ch-b', 'codehost');
    expect(a.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(b.source_revision_config.repo_commit_sha).toBe(a.source_revision_config.repo_commit_sha);
    const managed = await create('ch-managed', 'codehost', {
      source_config: { integration_id: ids.managedIntegration, repo_url: managedRepo },
    });
    expect(managed.source_revision_config.repo_commit_sha).not.toBe(a.source_revision_config.repo_commit_sha);
  });

  it('rejects codehost with an unknown integration or a repository of another integration', async () => {
    const unknown = '99999999-0000-4000-8000-000000000009';
    const res1 = await t.api.post(
      '/v2/deployments',
      createBody('x', 'codehost', { source_config: { integration_id: unknown, repo_url: installedRepo } }),
    );
    expect(res1.status).toBe(400);
    expect(res1.body.detail).toContain(unknown);
    const res2 = await t.api.post(
      '/v2/deployments',
      createBody('x', 'codehost', {
        source_config: { integration_id: ids.installedIntegration, repo_url: managedRepo },
      }),
    );
    expect(res2.status).toBe(400);
    expect(res2.body.detail).toContain('repo_url');
  });

  it.each([
    ['codehost', 'source_config', 'integration_id'],
    ['codehost', 'source_config', 'repo_url'],
    ['codehost', 'source_revision_config', 'repo_ref'],
    ['codehost', 'source_revision_config', 'graph_config_path'],
    ['internal_docker', 'source_revision_config', 'image_uri'],
    ['internal_source', 'source_revision_config', 'source_tarball_path'],
    ['internal_template', 'source_revision_config', 'graph_config_path'],
  ])('%s requires %s.%s', async (source, group, field) => {
    const body = createBody('needs-fields', source) as unknown as Record<string, Record<string, unknown>>;
    body[group] = { ...body[group], [field]: null };
    const res = await t.api.post('/v2/deployments', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ type: 'missing', loc: ['body', group, field] }),
    ]);
    expect((await t.api.get('/v2/deployments')).body.resources).toEqual([]);
  });

  it('requires secrets (possibly empty) and refuses unknown fields and wrong types', async () => {
    const { secrets: _secrets, ...noSecrets } = createBody('x');
    const res1 = await t.api.post('/v2/deployments', noSecrets);
    expect(res1.status).toBe(422);
    expect(res1.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'secrets'], msg: 'Field required', input: null },
    ]);

    const res2 = await t.api.post('/v2/deployments', { ...createBody('x'), colour: 'blue', name: 7 });
    expect(res2.status).toBe(422);
    expect(res2.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'colour'] }),
        expect.objectContaining({ type: 'string_type', loc: ['body', 'name'] }),
      ]),
    );
    const res3 = await t.api.post('/v2/deployments', createBody('x', 'internal_docker', { source: 'ftp' }));
    expect(res3.status).toBe(422);
    expect(res3.body.detail[0]).toMatchObject({ type: 'enum', loc: ['body', 'source'], input: 'ftp' });
    expect((await t.api.get('/v2/deployments')).body.resources).toEqual([]);
  });

  it('refuses external_docker on cloud and secret_references outside external_docker', async () => {
    const res1 = await t.api.post('/v2/deployments', createBody('x', 'external_docker'));
    expect(res1.status).toBe(400);
    expect(res1.body.detail).toContain('external_docker');
    const refs = [{ name: 'A', secret_name: 'k8s-secret', secret_key: 'a' }];
    const res2 = await t.api.post(
      '/v2/deployments',
      createBody('x', 'internal_docker', { secret_references: refs }),
    );
    expect(res2.status).toBe(400);
    expect(res2.body.detail).toContain('secret_references');
    expect(
      (await t.api.post('/v2/deployments', createBody('x', 'internal_docker', { secret_references: [] })))
        .status,
    ).toBe(201);
  });

  it('refuses duplicate secret names', async () => {
    const secrets = [
      { name: 'A', value: '1' },
      { name: 'A', value: '2' },
    ];
    const res = await t.api.post('/v2/deployments', createBody('x', 'internal_docker', { secrets }));
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('A');
  });

  it('checks that the listener exists in the tenant', async () => {
    const unknown = '99999999-0000-4000-8000-000000000001';
    const res = await t.api.post(
      '/v2/deployments',
      createBody('x', 'internal_docker', { source_config: { listener_id: unknown } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(unknown);
    const other = client(t.emu.url, keys.otherTenant);
    const res2 = await other.post(
      '/v2/deployments',
      createBody('x', 'internal_docker', { source_config: { listener_id: ids.listener } }),
    );
    expect(res2.status).toBe(400);
    const ok = await t.api.post(
      '/v2/deployments',
      createBody('x', 'internal_docker', {
        source_config: { listener_id: ids.listener, listener_config: { k8s_namespace: 'agents' } },
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('answers 409 for a name already taken in the tenant and creates nothing', async () => {
    await create('taken');
    const res = await t.api.post('/v2/deployments', createBody('taken', 'internal_source'));
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('taken');
    const state = await t.admin.get('/_emulator/state');
    expect(state.body.deployments).toHaveLength(1);
    expect(state.body.tracing_projects).toHaveLength(1);
    // Names are per tenant.
    expect(
      (await client(t.emu.url, keys.otherTenant).post('/v2/deployments', createBody('taken'))).status,
    ).toBe(201);
  });
});

describe('GET /v2/deployments', () => {
  it('filters by every parameter', async () => {
    const a = await create('Support-Bot', 'internal_docker', {
      source_config: { deployment_type: 'prod', listener_id: ids.listener },
    });
    const b = await create('research', 'internal_docker', { source_config: { deployment_type: 'dev' } });
    await advance(t.admin, 6 * step);
    const c = await create('support-two', 'internal_source');
    const names = async (query: string) => {
      const res = await t.api.get(`/v2/deployments?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Page(Deployment)
        .parse(res.body)
        .resources.map((d) => d.name);
    };
    expect(await names('')).toEqual(['support-two', 'research', 'Support-Bot']);
    expect(await names('name_contains=SUPPORT')).toEqual(['support-two', 'Support-Bot']);
    expect(await names('status=READY')).toEqual(['research', 'Support-Bot']);
    expect(await names('status=AWAITING_DATABASE')).toEqual(['support-two']);
    expect(await names(`deployment_ids=${a.id},${c.id}`)).toEqual(['support-two', 'Support-Bot']);
    expect(await names(`deployment_ids=${b.id}`)).toEqual(['research']);
    expect(await names('deployment_type=prod')).toEqual(['Support-Bot']);
    expect(await names('image_version=1.0.0')).toEqual(['research', 'Support-Bot']);
    expect(await names('image_version=0.0.1')).toEqual([]);
    expect(await names('remote_reconciled=true')).toEqual(['Support-Bot']);
    expect(await names('remote_reconciled=false')).toEqual(['support-two', 'research']);
    expect(await names('tag_value_ids=any')).toEqual([]);
    expect(await names('name_contains=support&deployment_type=prod')).toEqual(['Support-Bot']);
  });

  it('walks pages newest first with offset = next offset', async () => {
    for (const n of [1, 2, 3, 4, 5]) await create(`d${n}`);
    const seen: string[] = [];
    const offsets: number[] = [];
    let offset = 0;
    for (;;) {
      const res = await t.api.get(`/v2/deployments?limit=2&offset=${offset}`);
      const page = Page(Deployment).parse(res.body);
      offsets.push(page.offset);
      seen.push(...page.resources.map((d) => d.name));
      if (page.resources.length < 2) break;
      offset = page.offset;
    }
    expect(seen).toEqual(['d5', 'd4', 'd3', 'd2', 'd1']);
    expect(offsets).toEqual([2, 4, 5]);
    const past = await t.api.get('/v2/deployments?offset=9');
    expect(past.body).toEqual({ resources: [], offset: 9 });
  });

  it('returns 20 by default and up to 100', async () => {
    for (let n = 0; n < 21; n++) await create(`many-${n}`);
    expect((await t.api.get('/v2/deployments')).body.resources).toHaveLength(20);
    expect((await t.api.get('/v2/deployments?limit=100')).body.resources).toHaveLength(21);
    expect((await t.api.get('/v2/deployments?limit=1')).body).toMatchObject({ offset: 1 });
  });

  it('answers out-of-range or malformed parameters with FastAPI 422 lists', async () => {
    const res = await t.api.get('/v2/deployments?limit=101');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          type: 'less_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be less than or equal to 100',
          input: '101',
          ctx: { le: 100 },
        },
      ],
    });
    const cases: [string, string, string][] = [
      ['limit=0', 'limit', 'greater_than_equal'],
      ['limit=ten', 'limit', 'int_parsing'],
      ['limit=1.5', 'limit', 'int_parsing'],
      ['offset=-1', 'offset', 'greater_than_equal'],
      ['remote_reconciled=perhaps', 'remote_reconciled', 'bool_parsing'],
      ['deployment_type=huge', 'deployment_type', 'enum'],
    ];
    for (const [query, field, type] of cases) {
      const r = await t.api.get(`/v2/deployments?${query}`);
      expect(r.status, query).toBe(422);
      expect(r.body.detail, query).toEqual([expect.objectContaining({ loc: ['query', field], type })]);
    }
  });
});

describe('PATCH /v2/deployments/{id}', () => {
  it('updates source_config without a new revision and moves updated_at', async () => {
    const d = await create('p1');
    await advance(t.admin, 1000);
    const res = await t.api.patch(`/v2/deployments/${d.id}`, {
      source_config: { build_on_push: true, resource_spec: { min_scale: 2, labels: { team: 'a' } } },
    });
    expect(res.status).toBe(200);
    const after = Deployment.parse(res.body);
    expect(after.source_config).toMatchObject({
      build_on_push: true,
      resource_spec: { min_scale: 2 },
      deployment_type: 'dev',
    });
    expect(after.latest_revision_id).toBe(d.latest_revision_id);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(d.updated_at));
    expect(await revisions(t.api, d.id)).toHaveLength(1);
  });

  it('creates a revision when source_revision_config changes or secrets are sent, not for the same values', async () => {
    const d = await create('p2');
    const same = await t.api.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { image_uri: 'registry/app:1' },
    });
    expect(same.body.latest_revision_id).toBe(d.latest_revision_id);

    const changed = Deployment.parse(
      (
        await t.api.patch(`/v2/deployments/${d.id}`, {
          source_revision_config: { image_uri: 'registry/app:2' },
        })
      ).body,
    );
    expect(changed.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(changed.source_revision_config.image_uri).toBe('registry/app:2');

    const secrets = [{ name: 'TOKEN', value: 'v2' }];
    const withSecrets = Deployment.parse((await t.api.patch(`/v2/deployments/${d.id}`, { secrets })).body);
    expect(withSecrets.secrets).toEqual(secrets);
    expect(withSecrets.latest_revision_id).not.toBe(changed.latest_revision_id);
    const revs = await revisions(t.api, d.id);
    expect(revs.map((r) => r.id)).toEqual([
      withSecrets.latest_revision_id,
      changed.latest_revision_id,
      d.latest_revision_id,
    ]);
    expect(revs[0]!.source_revision_config.image_uri).toBe('registry/app:2');
  });

  it('lets revision_source override the source of one revision', async () => {
    const d = await create('p3', 'codehost');
    const res = await t.api.patch(`/v2/deployments/${d.id}`, {
      revision_source: 'internal_docker',
      source_revision_config: { image_uri: 'registry/prebuilt:1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('codehost');
    const [latest] = await revisions(t.api, d.id);
    expect(latest).toMatchObject({
      source: 'internal_docker',
      source_revision_config: { image_uri: 'registry/prebuilt:1' },
    });
    const missing = await t.api.patch(`/v2/deployments/${d.id}`, {
      revision_source: 'internal_source',
      source_revision_config: {},
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'source_revision_config', 'source_tarball_path']);
  });

  it.each([
    ['integration_id', ids.managedIntegration],
    ['repo_url', managedRepo],
    ['deployment_type', 'prod'],
    ['listener_id', ids.listener],
    ['listener_config', { k8s_namespace: 'other' }],
  ])('refuses to change %s (400 naming it) but accepts the same value', async (field, value) => {
    const d = await create(`imm-${field}`, 'codehost');
    const res = await t.api.patch(`/v2/deployments/${d.id}`, { source_config: { [field]: value } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(field);
    const same = await t.api.patch(`/v2/deployments/${d.id}`, {
      source_config: { [field]: (d.source_config as Record<string, unknown>)[field] },
    });
    expect(same.status).toBe(200);
    expect((await getDeployment(t.api, d.id)).body.source_config[field]).toEqual(
      (d.source_config as Record<string, unknown>)[field],
    );
  });

  it('refuses name, source and unknown fields, and answers 404/422 for bad ids', async () => {
    const d = await create('p4');
    const res = await t.api.patch(`/v2/deployments/${d.id}`, { name: 'renamed', source: 'codehost' });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((i: { loc: string[] }) => i.loc.at(-1)).sort()).toEqual(['name', 'source']);
    const unknown = await t.api.patch('/v2/deployments/99999999-0000-4000-8000-000000000001', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('99999999-0000-4000-8000-000000000001');
    const bad = await t.api.patch('/v2/deployments/not-a-uuid', {});
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: 'uuid_parsing', loc: ['path', 'deployment_id'] });
    expect((await getDeployment(t.api, d.id)).body.name).toBe('p4');
  });
});

describe('revision lifecycle', () => {
  it('steps through every state, then the deployment is READY with an active revision', async () => {
    const d = await create('life');
    const seen: string[] = [];
    const statuses: string[] = [];
    for (let i = 0; i < 7; i++) {
      const [rev] = await revisions(t.api, d.id);
      seen.push(rev!.status);
      statuses.push((await getDeployment(t.api, d.id)).body.status);
      await advance(t.admin, step);
    }
    expect(seen).toEqual([
      'CREATING',
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    expect(statuses).toEqual([...Array(6).fill('AWAITING_DATABASE'), 'READY']);
    const after = Deployment.parse((await getDeployment(t.api, d.id)).body);
    expect(after).toMatchObject({
      status: 'READY',
      active_revision_id: d.latest_revision_id,
      image_version: '1.0.0',
    });
    expect(Revision.parse((await revisions(t.api, d.id))[0]).updated_at).not.toBe(d.created_at);
  });

  it.each([
    [
      'image_uri',
      'registry/fail-build:1',
      'internal_docker',
      ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'BUILD_FAILED'],
    ],
    [
      'graph_config_path',
      'fail-deploy/langgraph.json',
      'codehost',
      ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOY_FAILED'],
    ],
    ['source_tarball_path', 'fail-create.tgz', 'internal_source', ['CREATE_FAILED']],
  ])('a %s containing a marker fails (%s)', async (field, value, source, expected) => {
    const base = createBody(`fail-${field}`, source);
    const d = await create(`fail-${field}`, source, {
      source_revision_config: { ...base.source_revision_config, [field]: value },
    });
    const seen: string[] = [];
    for (let i = 0; i < expected.length + 1; i++) {
      seen.push((await revisions(t.api, d.id))[0]!.status);
      await advance(t.admin, step);
    }
    expect(seen).toEqual([...expected, expected.at(-1)]);
    const after = (await getDeployment(t.api, d.id)).body;
    expect(after).toMatchObject({ status: 'AWAITING_DATABASE', active_revision_id: null });
  });

  it('supersedes: an older revision is SKIPPED before building and INTERRUPTED after', async () => {
    const d = await create('busy');
    await advance(t.admin, step); // QUEUED
    const r2 = (
      await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:2' } })
    ).body;
    await advance(t.admin, 3 * step); // r2 BUILDING
    await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:3' } });
    const revs = await revisions(t.api, d.id);
    expect(revs.map((r) => r.status)).toEqual(['CREATING', 'INTERRUPTED', 'SKIPPED']);
    expect(revs[1]!.id).toBe(r2.latest_revision_id);
    await advance(t.admin, 10 * step);
    expect((await revisions(t.api, d.id)).map((r) => r.status)).toEqual([
      'DEPLOYED',
      'INTERRUPTED',
      'SKIPPED',
    ]);
  });

  it('keeps the deployed revision active when a newer one fails', async () => {
    const d = await create('keep-active');
    await advance(t.admin, 6 * step);
    const failing = (
      await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'fail-build' } })
    ).body;
    await advance(t.admin, 6 * step);
    const after = (await getDeployment(t.api, d.id)).body;
    expect(after).toMatchObject({
      status: 'READY',
      active_revision_id: d.latest_revision_id,
      latest_revision_id: failing.latest_revision_id,
    });
    expect(after.source_revision_config.image_uri).toBe('fail-build');
  });

  it('lists revisions newest first with status and remote_reconciled filters and paging', async () => {
    const d = await create('revs', 'internal_docker', { source_config: { listener_id: ids.listener } });
    await advance(t.admin, 6 * step);
    await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'app:2' } });
    await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { image_uri: 'fail-create' } });
    const statuses = async (query: string) => {
      const res = await t.api.get(`/v2/deployments/${d.id}/revisions?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Page(Revision)
        .parse(res.body)
        .resources.map((r) => r.status);
    };
    expect(await statuses('')).toEqual(['CREATE_FAILED', 'SKIPPED', 'DEPLOYED']);
    expect(await statuses('status=DEPLOYED,CREATE_FAILED')).toEqual(['CREATE_FAILED', 'DEPLOYED']);
    expect(await statuses('remote_reconciled=true')).toHaveLength(3);
    expect(await statuses('remote_reconciled=false')).toEqual([]);
    expect(await statuses('limit=1&offset=1')).toEqual(['SKIPPED']);
    expect((await t.api.get(`/v2/deployments/${d.id}/revisions?limit=2`)).body.offset).toBe(2);
    expect((await t.api.get(`/v2/deployments/${d.id}/revisions?limit=101`)).status).toBe(422);
    expect((await t.api.get(`/v2/deployments/${d.id}/revisions?offset=x`)).status).toBe(422);
    expect((await t.api.get('/v2/deployments/99999999-0000-4000-8000-000000000001/revisions')).status).toBe(
      404,
    );
  });
});

describe('DELETE /v2/deployments/{id}', () => {
  it('is AWAITING_DELETE for one step, then gone with its tracing project so the name can be reused', async () => {
    const d = await create('doomed');
    await advance(t.admin, 3 * step); // BUILDING
    const del = await t.api.delete(`/v2/deployments/${d.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await getDeployment(t.api, d.id)).body.status).toBe('AWAITING_DELETE');
    expect((await t.api.delete(`/v2/deployments/${d.id}`)).status).toBe(204);
    expect((await revisions(t.api, d.id))[0]!.status).toBe('INTERRUPTED');
    expect(
      (await t.api.patch(`/v2/deployments/${d.id}`, { source_config: { build_on_push: true } })).status,
    ).toBe(409);
    expect((await t.api.post('/v2/deployments', createBody('doomed'))).status).toBe(409);
    expect((await t.api.get('/v2/deployments?status=AWAITING_DELETE')).body.resources).toHaveLength(1);
    await advance(t.admin, step);
    expect((await getDeployment(t.api, d.id)).status).toBe(404);
    expect((await t.api.delete(`/v2/deployments/${d.id}`)).status).toBe(404);
    expect((await t.api.get(`/v2/deployments/${d.id}/revisions`)).status).toBe(404);
    expect((await t.admin.get('/_emulator/state')).body.tracing_projects).toEqual([]);
    expect((await t.api.post('/v2/deployments', createBody('doomed'))).status).toBe(201);
  });
});

describe('tenancy', () => {
  it('shows a tenant only its own deployments', async () => {
    const mine = await create('mine');
    const other = client(t.emu.url, keys.otherTenant);
    expect((await other.get('/v2/deployments')).body.resources).toEqual([]);
    expect((await getDeployment(other, mine.id)).status).toBe(404);
    expect((await other.patch(`/v2/deployments/${mine.id}`, {})).status).toBe(404);
    expect((await other.delete(`/v2/deployments/${mine.id}`)).status).toBe(404);
    expect((await other.get(`/v2/deployments/${mine.id}/revisions`)).status).toBe(404);
    // Another user of the same tenant sees it.
    expect((await getDeployment(client(t.emu.url, keys.dev2), mine.id)).status).toBe(200);
  });
});
