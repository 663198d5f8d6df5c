// The client against the emulator over real HTTP: every endpoint of the interface (§4.1–§4.12) and the
// real service's extras, success and failure, paging, the path prefix, and retries under injected faults.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultSeedIds as ids, defaultSeedKeys as keys } from '../../src/emulator/seed.ts';
import { startEmulator } from '../../src/emulator/server.ts';
import { type CallRecord, ServiceClient, type ServiceClientOptions } from '../../src/service/client.ts';
import { ServiceError } from '../../src/service/errors.ts';
import type { CreateDeploymentRequest } from '../../src/service/wire.ts';

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
let emulator: Emulator;
const clients: ServiceClient[] = [];

function client(options: Partial<ServiceClientOptions> = {}): ServiceClient {
  const c = new ServiceClient({
    baseUrl: emulator.url,
    apiKey: keys.dev,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, maxElapsedMs: 5_000 },
    ...options,
  });
  clients.push(c);
  return c;
}

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${emulator.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
  return res.status === 204 ? undefined : res.json();
}

/** Requests that reached an endpoint of the emulator, by template ("GET /v2/listeners"). */
async function served(endpoint: string): Promise<number> {
  const state = (await admin('GET', '/_emulator/state')) as { calls: Record<string, number> };
  return state.calls[endpoint] ?? 0;
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

const codehost = (name: string): CreateDeploymentRequest => ({
  name,
  source: 'codehost',
  source_config: {
    integration_id: ids.installedIntegration,
    repo_url: 'https://github.com/acme/support-agent',
    deployment_type: 'dev',
  },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
  secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-1' }],
});

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', mode: 'cloud', stepMs: 0 });
});
beforeEach(async () => {
  await admin('DELETE', '/_emulator/faults');
  await admin('POST', '/_emulator/reset');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emulator.close();
});

describe('§4.2 list OAuth providers', () => {
  it('returns the providers with their documented fields', async () => {
    const providers = await client().listProviders();
    expect(providers.map((p) => p.provider_id).sort()).toEqual(['github', 'google']);
    const google = providers.find((p) => p.provider_id === 'google')!;
    expect(google).toMatchObject({ uses_pkce: true, code_challenge_method: 'S256' });
  });
});

describe('§4.7, §4.3, §4.4 code-host integrations and repositories', () => {
  it('lists the integrations and the repositories of each kind', async () => {
    const c = client();
    const integrations = await c.listIntegrations();
    expect(integrations).toEqual([
      { id: ids.installedIntegration, installation_id: 1001, name: 'acme' },
      { id: ids.managedIntegration, installation_id: 2001, name: 'hosted-acme' },
    ]);
    const repos = await c.listRepos(ids.installedIntegration);
    expect(repos.map((r) => r.url)).toContain('https://github.com/acme/support-agent');
    expect(repos.every((r) => r.host_integration_id === ids.installedIntegration)).toBe(true);
    const hosted = await c.listHostedRepos(ids.managedIntegration);
    expect(hosted.map((r) => r.name).sort()).toEqual(['chat-agent', 'sql-agent']);
  });

  it('answers 404 for an integration on the wrong path', async () => {
    const error = await failure(client().listRepos(ids.managedIntegration));
    expect(error.isNotFound).toBe(true);
    expect(error.endpoint).toBe('GET /v1/integrations/codehost/{integration_id}/repos');
    expect(error.retryable).toBe(false);
    expect((await failure(client().listHostedRepos(ids.installedIntegration))).status).toBe(404);
  });
});

describe('§4.1 update token metadata', () => {
  it('updates the label for the owner', async () => {
    const token = await client().updateTokenMetadata(ids.githubToken, { provider_account_label: 'work' });
    expect(token).toMatchObject({ id: ids.githubToken, provider_account_label: 'work', is_default: true });
  });

  it('refuses another user of the same tenant with 403, and an unknown token with 404', async () => {
    const error = await failure(
      client({ apiKey: keys.dev2 }).updateTokenMetadata(ids.githubToken, { provider_account_label: 'x' }),
    );
    expect(error.isForbidden).toBe(true);
    expect(error.detail).toMatch(/owner/);
    expect((await failure(client().updateTokenMetadata('nope', { is_default: false }))).isNotFound).toBe(
      true,
    );
  });
});

describe('§4.5 connect an agent to a token', () => {
  it('creates a connection carrying the token data', async () => {
    const connection = await client().connectAgent('agent-1', { oauth_token_id: ids.githubToken });
    expect(connection).toMatchObject({
      agent_id: 'agent-1',
      oauth_token_id: ids.githubToken,
      provider_id: 'github',
      created_by: ids.devUser,
    });
    expect(connection.scopes).toEqual(['repo', 'read:user']);
  });

  it('does not see a token of another tenant', async () => {
    const error = await failure(
      client({ apiKey: keys.otherTenant }).connectAgent('agent-1', { oauth_token_id: ids.githubToken }),
    );
    expect(error.isNotFound).toBe(true);
  });
});

describe('§4.6 create a deployment', () => {
  it('creates it with the read-only fields and a first revision', async () => {
    const d = await client().createDeployment(codehost('support'));
    expect(d).toMatchObject({ name: 'support', source: 'codehost', tenant_id: ids.tenant });
    expect(d.latest_revision_id).toEqual(expect.any(String));
    expect(d.source_config.repo_url).toBe('https://github.com/acme/support-agent');
    // §1: a tracing project of the same name comes with it.
    const state = (await admin('GET', '/_emulator/state')) as { tracing_projects: { name: string }[] };
    expect(state.tracing_projects.map((p) => p.name)).toContain('support');
    // With a zero-length lifecycle step the first revision is deployed at once.
    const [listed] = (await client().listDeployments({ deployment_ids: [d.id] })).resources;
    expect(listed).toMatchObject({ status: 'READY', active_revision_id: d.latest_revision_id });
  });

  it('answers 409 for a name that is taken', async () => {
    const c = client();
    await c.createDeployment(codehost('twice'));
    const error = await failure(c.createDeployment(codehost('twice')));
    expect(error.isConflict).toBe(true);
    expect(error.endpoint).toBe('POST /v2/deployments');
  });

  it('renders a 422 list readably', async () => {
    const body = codehost('missing');
    body.source_config = { repo_url: body.source_config.repo_url };
    body.source_revision_config = { repo_ref: 'main' };
    const error = await failure(client().createDeployment(body));
    expect(error.isValidation).toBe(true);
    expect(error.detail).toBe(
      'source_config.integration_id: Field required for source codehost; ' +
        'source_revision_config.graph_config_path: Field required for source codehost',
    );
    expect(error.issues?.[0]?.loc).toEqual(['body', 'source_config', 'integration_id']);
  });

  it('answers 400 for a source the installation does not offer', async () => {
    const error = await failure(
      client().createDeployment({
        name: 'docker',
        source: 'external_docker',
        source_config: {},
        source_revision_config: { image_uri: 'registry/app:1' },
        secrets: [],
      }),
    );
    expect(error.isBadRequest).toBe(true);
    expect(error.detail).toContain('external_docker');
  });
});

describe('§4.8 patch a deployment', () => {
  it('makes a new revision when the revision config changes', async () => {
    const c = client();
    const d = await c.createDeployment(codehost('patched'));
    const patched = await c.patchDeployment(d.id, { source_revision_config: { repo_ref: 'release' } });
    expect(patched.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(patched.source_revision_config.repo_ref).toBe('release');
  });

  it('answers 400 when an immutable field changes', async () => {
    const c = client();
    const d = await c.createDeployment(codehost('immutable'));
    const error = await failure(c.patchDeployment(d.id, { source_config: { deployment_type: 'prod' } }));
    expect(error.isBadRequest).toBe(true);
    expect(error.detail).toContain('deployment_type cannot be changed');
  });

  it('answers 404 for an unknown id and for a deployment of another tenant', async () => {
    const d = await client().createDeployment(codehost('mine'));
    const other = client({ apiKey: keys.otherTenant });
    expect((await failure(other.patchDeployment(d.id, { secrets: [] }))).isNotFound).toBe(true);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const error = await failure(client().patchDeployment(unknown, { secrets: [] }));
    expect(error.isNotFound).toBe(true);
    expect(error.path).toBe(`/v2/deployments/${unknown}`);
  });
});

describe('DELETE /v2/deployments/{id} (real-service extra)', () => {
  it('deletes, and answers a typed not-found for an unknown id', async () => {
    const c = client();
    const d = await c.createDeployment(codehost('doomed'));
    await expect(c.deleteDeployment(d.id)).resolves.toBeUndefined();
    const [after] = (await c.listDeployments({ deployment_ids: [d.id] })).resources;
    expect(after?.status ?? 'gone').toMatch(/AWAITING_DELETE|gone/);
    const error = await failure(c.deleteDeployment('00000000-0000-4000-8000-000000000000'));
    expect(error.isNotFound).toBe(true);
    expect(error.endpoint).toBe('DELETE /v2/deployments/{deployment_id}');
  });
});

describe('§4.10 list deployments and §2.14 paging', () => {
  it('filters by name and ids, and walks every page', async () => {
    const calls: CallRecord[] = [];
    const c = client({ onCall: (call) => calls.push(call) });
    const created = [];
    for (const i of [1, 2, 3, 4, 5]) created.push(await c.createDeployment(codehost(`agent-${i}`)));
    calls.length = 0;

    const all = await c.listAllDeployments({ limit: 2 });
    expect(all.map((d) => d.name).sort()).toEqual(['agent-1', 'agent-2', 'agent-3', 'agent-4', 'agent-5']);
    expect(calls.map((x) => x.endpoint)).toEqual(Array(3).fill('GET /v2/deployments'));

    const page = await c.listDeployments({ name_contains: 'agent-3' });
    expect(page.resources.map((d) => d.name)).toEqual(['agent-3']);
    const byIds = await c.listDeployments({ deployment_ids: [created[0]!.id, created[4]!.id] });
    expect(byIds.resources.map((d) => d.id).sort()).toEqual([created[0]!.id, created[4]!.id].sort());

    const names: string[] = [];
    for await (const d of c.iterateDeployments({ limit: 1 })) {
      names.push(d.name);
      if (names.length === 2) break;
    }
    expect(names).toHaveLength(2);
  });

  it('filters by status and deployment type, and pages by 20 when no limit is given', async () => {
    const c = client();
    for (let i = 0; i < 21; i++) await c.createDeployment(codehost(`many-${i}`));
    expect((await c.listDeployments()).resources).toHaveLength(20);
    expect((await c.listDeployments({ deployment_type: 'prod' })).resources).toEqual([]);
    expect((await c.listAllDeployments({ deployment_type: 'dev', status: 'READY' })).length).toBe(21);
  });

  it('renders query validation errors with their location', async () => {
    const error = await failure(client().listDeployments({ limit: 0, offset: -1 }));
    expect(error.status).toBe(422);
    expect(error.detail).toBe(
      'query.limit: Input should be greater than or equal to 1; query.offset: Input should be greater than or equal to 0',
    );
    expect((await failure(client().listDeployments({ limit: 101 }))).detail).toBe(
      'query.limit: Input should be less than or equal to 100',
    );
  });
});

describe('§4.9 list revisions', () => {
  it('lists every revision across pages, and filters by status', async () => {
    const c = client();
    const d = await c.createDeployment(codehost('revised'));
    await c.patchDeployment(d.id, { source_revision_config: { repo_ref: 'v2' } });
    const last = await c.patchDeployment(d.id, {
      source_revision_config: { graph_config_path: 'fail-build.json' },
    });
    const revisions = await c.listAllRevisions(d.id, { limit: 1 });
    expect(revisions).toHaveLength(3);
    expect(new Set(revisions.map((r) => r.id)).size).toBe(3);
    expect(revisions.map((r) => r.id)).toContain(last.latest_revision_id);
    const failed = await c.listRevisions(d.id, { status: ['BUILD_FAILED'] });
    expect(failed.resources.map((r) => r.id)).toEqual([last.latest_revision_id]);
    expect((await failure(c.listRevisions('00000000-0000-4000-8000-000000000000'))).isNotFound).toBe(true);
  });
});

describe('walking helpers', () => {
  it('hand the caller’s signal to every page call: aborted after the first page, a walk ends there', async () => {
    const d = await client().createDeployment(codehost('walked'));
    const walks: Array<[string, (c: ServiceClient, signal: AbortSignal) => Promise<unknown[]>]> = [
      ['GET /v2/deployments', (c, signal) => c.listAllDeployments({ limit: 1 }, { signal })],
      [
        'GET /v2/deployments/{deployment_id}/revisions',
        (c, signal) => c.listAllRevisions(d.id, { limit: 1 }, { signal }),
      ],
      ['GET /v2/listeners', (c, signal) => c.listAllListeners({ limit: 1 }, { signal })],
    ];
    for (const [endpoint, walk] of walks) {
      const controller = new AbortController();
      const reason = new Error(`stopped ${endpoint}`);
      const calls: CallRecord[] = [];
      const c = client({
        onCall: (call) => {
          calls.push(call);
          controller.abort(reason);
        },
      });
      await expect(walk(c, controller.signal)).rejects.toBe(reason);
      expect(calls.map((x) => [x.endpoint, x.status])).toEqual([[endpoint, 200]]);
    }
  });
});

describe('§4.11, §4.12 listeners and the real-service extras', () => {
  it('gets, lists, creates, patches and deletes', async () => {
    const c = client();
    const seeded = await c.getListener(ids.listener);
    expect(seeded).toMatchObject({ compute_type: 'k8s', compute_id: 'dev-cluster' });

    const made = [];
    for (const n of [1, 2, 3]) {
      made.push(
        await c.createListener({
          compute_type: 'k8s',
          compute_id: `c${n}`,
          compute_config: { k8s_namespaces: ['a'] },
        }),
      );
    }
    const all = await c.listAllListeners({ limit: 2 });
    expect(all.map((l) => l.compute_id).sort()).toEqual(['c1', 'c2', 'c3', 'dev-cluster']);
    expect((await c.listListeners({ limit: 1, offset: 1 })).resources).toHaveLength(1);

    const patched = await c.patchListener(made[0]!.id, { compute_config: { k8s_namespaces: ['a', 'b'] } });
    expect(patched.compute_config.k8s_namespaces).toEqual(['a', 'b']);
    await c.deleteListener(made[0]!.id);
    expect((await failure(c.getListener(made[0]!.id))).isNotFound).toBe(true);
    expect((await failure(c.deleteListener(made[0]!.id))).isNotFound).toBe(true);
  });

  it('answers 409 for a duplicate compute_id and 403 when the plan does not allow listeners', async () => {
    const body = { compute_type: 'k8s' as const, compute_id: 'dev-cluster', compute_config: {} };
    expect((await failure(client().createListener(body))).isConflict).toBe(true);
    const basic = await failure(
      client({ apiKey: keys.basicPlan }).createListener({ ...body, compute_id: 'x' }),
    );
    expect(basic.isForbidden).toBe(true);
    expect(basic.retryable).toBe(false);
  });
});

describe('§5 authentication', () => {
  it('answers 401 for an unknown key and 403 for a tenant that is not the key’s', async () => {
    const bad = await failure(client({ apiKey: 'wrong-key' }).listProviders());
    expect(bad.isUnauthorized).toBe(true);
    const mismatch = await failure(client({ tenantId: ids.otherTenant }).listDeployments());
    expect(mismatch.isForbidden).toBe(true);
    expect(mismatch.detail).toContain('X-Tenant-Id');
    await expect(client({ tenantId: ids.tenant }).listDeployments()).resolves.toMatchObject({
      resources: [],
    });
  });
});

describe('base URL with a path prefix', () => {
  it('reaches every kind of endpoint under the prefix', async () => {
    const prefixed = await startEmulator({
      port: 0,
      host: '127.0.0.1',
      mode: 'self-hosted',
      pathPrefix: '/api',
    });
    try {
      const base = new URL(prefixed.url);
      const withPrefix = base.pathname.startsWith('/api') ? prefixed.url : `${base.origin}/api`;
      const c = client({ baseUrl: `${withPrefix}/` });
      const d = await c.createDeployment({
        name: 'docker',
        source: 'external_docker',
        source_config: {},
        source_revision_config: { image_uri: 'registry/app:1' },
        secrets: [],
      });
      expect((await c.listAllDeployments()).map((x) => x.id)).toEqual([d.id]);
      expect((await c.getListener(ids.listener)).id).toBe(ids.listener);
      // §1: a self-hosted installation offers external_docker only.
      expect((await failure(c.createDeployment(codehost('cloud-only')))).isBadRequest).toBe(true);
      // Without the prefix the service is not there.
      const bare = client({ baseUrl: base.origin });
      expect((await failure(bare.getListener(ids.listener))).status).toBe(404);
    } finally {
      await prefixed.close();
    }
  });
});

describe('retries under injected faults', () => {
  it('repeats an idempotent call after 503s until it succeeds', async () => {
    await admin('POST', '/_emulator/faults', { error_rate: 1, statuses: [503], retry_after_s: 0 });
    const calls: CallRecord[] = [];
    const c = client({
      retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 100, maxElapsedMs: 5_000 },
      onCall: (call) => {
        calls.push(call);
        // The fault goes away after two failed attempts.
        if (call.attempt === 2) void admin('DELETE', '/_emulator/faults');
      },
    });
    const listener = await c.getListener(ids.listener);
    expect(listener.id).toBe(ids.listener);
    // The fault is lifted while the client waits, so the third or (if the wait was short) fourth attempt wins.
    const statuses = calls.map((x) => x.status);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.slice(0, -1)).toEqual(Array(statuses.length - 1).fill(503));
    expect(statuses.length).toBeGreaterThanOrEqual(3);
    expect(calls.map((x) => x.attempt)).toEqual(statuses.map((_, i) => i + 1));
    expect(await served('GET /v2/listeners/{listener_id}')).toBe(calls.length);
  });

  it('honours the Retry-After of a 429', async () => {
    await admin('POST', '/_emulator/faults', { error_rate: 1, statuses: [429], retry_after_s: 1 });
    const times: number[] = [];
    const c = client({
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5_000, maxElapsedMs: 10_000 },
      onCall: (call) => {
        times.push(performance.now());
        if (call.attempt === 1) void admin('DELETE', '/_emulator/faults');
      },
    });
    await c.listProviders();
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('gives up in bounded time when the faults do not stop', async () => {
    await admin('POST', '/_emulator/faults', { error_rate: 1, statuses: [502, 504], retry_after_s: 0 });
    const c = client({ retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 100, maxElapsedMs: 700 } });
    const started = performance.now();
    const error = await failure(c.listAllDeployments());
    expect(performance.now() - started).toBeLessThan(1_200);
    expect(error.attempts).toBeGreaterThan(1);
    expect(error.retryable).toBe(true);
    expect(await served('GET /v2/deployments')).toBe(error.attempts);
  });

  it('does not repeat a create after a 5xx', async () => {
    await admin('POST', '/_emulator/faults', {
      error_rate: 1,
      statuses: [503],
      retry_after_s: 0,
      paths: ['POST /v2/deployments'],
    });
    const calls: CallRecord[] = [];
    const error = await failure(
      client({ onCall: (call) => calls.push(call) }).createDeployment(codehost('once')),
    );
    expect(error.status).toBe(503);
    expect(calls).toHaveLength(1);
    expect(await served('POST /v2/deployments')).toBe(1);
  });

  it('repeats a GET after dropped connections but not a POST', async () => {
    await admin('POST', '/_emulator/faults', { reset_rate: 1 });
    const calls: CallRecord[] = [];
    const c = client({ onCall: (call) => calls.push(call) });
    const get = await failure(c.listListeners());
    expect(get.isNetworkError).toBe(true);
    expect(get.attempts).toBe(3);
    calls.length = 0;
    const post = await failure(c.connectAgent('a', { oauth_token_id: ids.githubToken }));
    expect(post.attempts).toBe(1);
    expect(calls.map((x) => x.status)).toEqual(['error']);
  });

  it('aborts a slow call when the caller’s signal fires', async () => {
    await admin('POST', '/_emulator/faults', { latency_ms: 3_000 });
    const started = performance.now();
    await expect(client().listProviders({ signal: AbortSignal.timeout(200) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
