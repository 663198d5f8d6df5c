// What the client puts on the wire (URL, query, headers, body) and how it judges what comes back,
// against a real HTTP server on 127.0.0.1 that answers whatever the test wants.
import { afterEach, describe, expect, it } from 'vitest';
import { type CallRecord, ServiceClient, walk } from '../../src/service/client.ts';
import { ServiceContractError } from '../../src/service/errors.ts';
import { CreateDeploymentRequest, SourceConfigInput } from '../../src/service/wire.ts';
import {
  deploymentBody,
  type HttpStub,
  json,
  listenerBody,
  revisionBody,
  type StubHandler,
  startStub,
} from './http-stub.ts';

let stub: HttpStub | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
});

async function setup(handler: StubHandler, baseSuffix = '', tenantId?: string) {
  stub = await startStub(handler);
  const calls: CallRecord[] = [];
  client = new ServiceClient({
    baseUrl: `${stub.url}${baseSuffix}`,
    apiKey: 'key-1',
    tenantId,
    onCall: (c) => calls.push(c),
  });
  return { stub, client, calls };
}

describe('requests', () => {
  it('sends the auth headers, the path prefix and a JSON body', async () => {
    const { stub, client } = await setup((_req, res) => json(res, 201, listenerBody), '/api/', 'tenant-9');
    await client.createListener({
      compute_type: 'k8s',
      compute_id: 'c',
      compute_config: { k8s_namespaces: [] },
    });
    const [req] = stub.requests;
    expect(req!.url).toBe('/api/v2/listeners');
    expect(req!.headers['x-api-key']).toBe('key-1');
    expect(req!.headers['x-tenant-id']).toBe('tenant-9');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({
      compute_type: 'k8s',
      compute_id: 'c',
      compute_config: { k8s_namespaces: [] },
    });
  });

  it('leaves out the tenant header when no tenant is given, and the body on a GET', async () => {
    const { stub, client } = await setup((_req, res) => json(res, 200, []));
    await client.listProviders();
    expect(stub.requests[0]!.headers['x-tenant-id']).toBeUndefined();
    expect(stub.requests[0]!.headers['content-type']).toBeUndefined();
    expect(stub.requests[0]!.body).toBe('');
  });

  it('encodes query lists comma-joined, booleans as words, and path parameters escaped', async () => {
    const { stub, client } = await setup((_req, res) => json(res, 200, { resources: [], offset: 0 }));
    await client.listDeployments({
      limit: 5,
      deployment_ids: ['a', 'b'],
      remote_reconciled: false,
      name_contains: 'x y',
      status: undefined,
    });
    await client.listRevisions('a/b', { status: ['BUILDING', 'DEPLOYING'] });
    const first = new URL(stub.requests[0]!.url, stub.url);
    expect(first.pathname).toBe('/v2/deployments');
    expect(Object.fromEntries(first.searchParams)).toEqual({
      limit: '5',
      deployment_ids: 'a,b',
      remote_reconciled: 'false',
      name_contains: 'x y',
    });
    const second = new URL(stub.requests[1]!.url, stub.url);
    expect(second.pathname).toBe('/v2/deployments/a%2Fb/revisions');
    expect(second.searchParams.get('status')).toBe('BUILDING,DEPLOYING');
  });
});

describe('request schemas', () => {
  it('take only the enum values that may be sent, dev_zero and dev_free_zero included', () => {
    for (const type of ['dev_free', 'dev', 'prod', 'dev_zero', 'dev_free_zero'])
      expect(SourceConfigInput.safeParse({ deployment_type: type }).success).toBe(true);
    expect(SourceConfigInput.safeParse({ deployment_type: 'turbo' }).success).toBe(false);
    const create = { name: 'a', source_config: {}, source_revision_config: {}, secrets: [] };
    expect(CreateDeploymentRequest.safeParse({ ...create, source: 'internal_docker' }).success).toBe(true);
    expect(CreateDeploymentRequest.safeParse({ ...create, source: 'internal_git' }).success).toBe(false);
  });
});

describe('responses', () => {
  it('keeps fields the interface does not know', async () => {
    const { client } = await setup((_req, res) => json(res, 200, { ...listenerBody, region: 'eu-1' }));
    const listener = await client.getListener(listenerBody.id);
    expect(listener.region).toBe('eu-1');
  });

  it('keeps enum values the interface does not list, as sent', async () => {
    const deployment = {
      ...deploymentBody,
      source: 'internal_git',
      status: 'AWAITING_FINAL_DELETE',
      source_config: { deployment_type: 'dev_zero' },
    };
    const revision = { ...revisionBody, status: 'ROLLING_BACK', source: 'internal_git' };
    const { client } = await setup((req, res) =>
      json(res, 200, {
        resources: req.url.includes('/revisions') ? [revision] : [deployment],
        offset: 1,
      }),
    );
    const [got] = (await client.listDeployments()).resources;
    expect(got).toMatchObject({
      source: 'internal_git',
      status: 'AWAITING_FINAL_DELETE',
      source_config: { deployment_type: 'dev_zero' },
    });
    const [rev] = (await client.listRevisions(deploymentBody.id)).resources;
    expect(rev).toMatchObject({ status: 'ROLLING_BACK', source: 'internal_git' });
  });

  it('fills the documented defaults of an OAuth provider', async () => {
    const provider = {
      id: 'p',
      organization_id: 'o',
      provider_id: 'github',
      name: 'GitHub',
      client_id: 'c',
      auth_url: 'https://a',
      token_url: 'https://t',
      uses_pkce: false,
      code_challenge_method: null,
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    };
    const { client } = await setup((_req, res) => json(res, 200, [provider]));
    const [got] = await client.listProviders();
    expect(got!.token_endpoint_auth_method).toBe('client_secret_post');
    expect(got!.is_dynamic_client).toBe(false);
  });

  it('turns a body that breaks the contract into a ServiceContractError naming endpoint and field', async () => {
    const bad = { ...listenerBody, id: 'not-a-uuid', compute_config: { k8s_namespaces: 'default' } };
    const { stub, client, calls } = await setup((_req, res) => json(res, 200, bad));
    const error = await client.getListener(listenerBody.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceContractError);
    const contract = error as ServiceContractError;
    expect(contract.endpoint).toBe('GET /v2/listeners/{listener_id}');
    expect(contract.contractIssues.map((i) => i.path).sort()).toEqual([
      'compute_config.k8s_namespaces',
      'id',
    ]);
    expect(contract.message).toContain('GET /v2/listeners/{listener_id}');
    expect(contract.message).toContain('at id: ');
    expect(contract.retryable).toBe(false);
    expect(stub.requests).toHaveLength(1);
    expect(calls).toMatchObject([{ status: 200, contractViolations: 1 }]);
  });

  it('names a missing field and a value of the wrong type', async () => {
    const { version: _dropped, ...noVersion } = listenerBody;
    const { client } = await setup((req, res) =>
      req.url.startsWith('/v2/listeners')
        ? json(res, 200, noVersion)
        : json(res, 200, { resources: [{ ...revisionBody, status: 42 }], offset: 1 }),
    );
    await expect(client.getListener(listenerBody.id)).rejects.toThrow(
      /GET \/v2\/listeners\/\{listener_id\}.*version/,
    );
    const { rejected } = await client.listRevisions('d');
    expect(rejected[0]!.error.contractIssues.map((i) => i.path)).toEqual(['resources[0].status']);
  });

  it('treats a success body that is not JSON as a contract error', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    const error = (await client.listIntegrations().catch((e: unknown) => e)) as ServiceContractError;
    expect(error).toBeInstanceOf(ServiceContractError);
    expect(error.contractIssues).toEqual([{ path: '(body)', message: 'not JSON' }]);
  });

  it('accepts an empty 204 on delete', async () => {
    const { stub, client, calls } = await setup((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(client.deleteListener(listenerBody.id)).resolves.toBeUndefined();
    expect(stub.requests[0]!.method).toBe('DELETE');
    expect(calls).toMatchObject([{ endpoint: 'DELETE /v2/listeners/{listener_id}', status: 204 }]);
  });
});

describe('lists, item by item', () => {
  const second = { ...listenerBody, id: 'dddddddd-0000-4000-8000-000000000002', compute_id: 'other' };

  it('leaves out an item that breaks the contract, keeps the others, and reports it with its path', async () => {
    const bad = { ...listenerBody, id: 'not-a-uuid', compute_config: { k8s_namespaces: 'default' } };
    const { stub, client, calls } = await setup((_req, res) =>
      json(res, 200, { resources: [listenerBody, bad, second], offset: 3 }),
    );
    const page = await client.listListeners();
    expect(page.resources.map((l) => l.id)).toEqual([listenerBody.id, second.id]);
    expect(page.offset).toBe(3);
    expect(page.rejected).toHaveLength(1);
    const [item] = page.rejected;
    expect(item).toMatchObject({ index: 1, id: 'not-a-uuid', name: undefined });
    expect(item!.error).toBeInstanceOf(ServiceContractError);
    expect(item!.error.endpoint).toBe('GET /v2/listeners');
    expect(item!.error.contractIssues.map((i) => i.path).sort()).toEqual([
      'resources[1].compute_config.k8s_namespaces',
      'resources[1].id',
    ]);
    expect(item!.error.message).toMatch(
      /^GET \/v2\/listeners \(\/v2\/listeners\): HTTP 200: .*resources\[1\]\.id/,
    );
    expect(item!.error.retryable).toBe(false);
    expect(stub.requests).toHaveLength(1);
    expect(calls).toMatchObject([{ endpoint: 'GET /v2/listeners', status: 200, contractViolations: 1 }]);
  });

  it('reports a deployment without an id by its name and path, and keeps the rest', async () => {
    const { id: _id, ...noId } = { ...deploymentBody, name: 'nameless-id' };
    const other = { ...deploymentBody, id: 'eeeeeeee-0000-4000-8000-000000000002', name: 'other' };
    const { client } = await setup((_req, res) =>
      json(res, 200, { resources: [deploymentBody, noId, other], offset: 3 }),
    );
    const page = await client.listDeployments();
    expect(page.resources.map((d) => d.name)).toEqual(['agent', 'other']);
    expect(page.rejected).toMatchObject([{ index: 1, id: undefined, name: 'nameless-id' }]);
    expect(page.rejected[0]!.error.contractIssues).toEqual([
      { path: 'resources[1].id', message: expect.stringContaining('string') },
    ]);
  });

  it('still fails whole when the page wrapper itself breaks the contract', async () => {
    const { client, calls } = await setup((_req, res) => json(res, 200, { resources: 'none', offset: 0 }));
    const error = (await client.listListeners().catch((e: unknown) => e)) as ServiceContractError;
    expect(error).toBeInstanceOf(ServiceContractError);
    expect(error.contractIssues.map((i) => i.path)).toEqual(['resources']);
    expect(calls).toMatchObject([{ contractViolations: 1 }]);
  });

  it('walks on past an item left out: it counts toward the page size, and goes to onRejected', async () => {
    const pages = [[listenerBody, { id: 'x' }], [second]];
    const { stub, client } = await setup((req, res) => {
      const offset = Number(new URL(req.url, 'http://x').searchParams.get('offset'));
      json(res, 200, { resources: pages[offset / 2] ?? [], offset: offset + 2 });
    });
    const rejected: unknown[] = [];
    const all = await client.listAllListeners({ limit: 2 }, { onRejected: (item) => rejected.push(item) });
    expect(all.map((l) => l.id)).toEqual([listenerBody.id, second.id]);
    expect(rejected).toMatchObject([{ index: 1, id: 'x' }]);
    expect(stub.requests).toHaveLength(2);
    // Without onRejected, a walk cannot tell its caller what it left out: it fails.
    const error = await client.listAllListeners({ limit: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceContractError);
    expect((error as ServiceContractError).contractIssues[0]!.path).toMatch(/^resources\[1\]\./);
  });

  it('finds a deployment by name unless an item left out may be the one', async () => {
    let answer: unknown[] = [];
    const { client } = await setup((_req, res) => json(res, 200, { resources: answer, offset: 0 }));
    const broken = (name?: string) => ({ ...deploymentBody, id: 'bad', ...(name ? { name } : {}) });
    const { name: _name, ...nameless } = broken();

    answer = [deploymentBody, broken('agent')];
    expect((await client.findDeploymentByName('agent'))?.id).toBe(deploymentBody.id);
    answer = [broken('agent-2')];
    expect(await client.findDeploymentByName('agent')).toBeUndefined();
    answer = [broken('agent')];
    await expect(client.findDeploymentByName('agent')).rejects.toThrow(/resources\[0\]\.id/);
    answer = [nameless];
    await expect(client.findDeploymentByName('agent')).rejects.toBeInstanceOf(ServiceContractError);
  });

  it('finds a listener by compute_id past a broken entry, and answers none only when nothing was left out', async () => {
    let answer: unknown[] = [];
    const { client } = await setup((_req, res) => json(res, 200, { resources: answer, offset: 0 }));
    const broken = { ...listenerBody, id: 'bad', compute_id: 42 };
    answer = [broken, listenerBody];
    expect((await client.findListenerByComputeId(listenerBody.compute_id))?.id).toBe(listenerBody.id);
    answer = [listenerBody];
    expect(await client.findListenerByComputeId('elsewhere')).toBeUndefined();
    answer = [broken, listenerBody];
    await expect(client.findListenerByComputeId('elsewhere')).rejects.toThrow(/resources\[0\]\.compute_id/);
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('walking pages', () => {
  const items = Array.from({ length: 7 }, (_, i) => i);

  it('follows the offset the service returns and stops on a short page', async () => {
    const asked: number[] = [];
    const seen = await collect(
      walk(async (offset, limit) => {
        asked.push(offset);
        const resources = items.slice(offset, offset + limit);
        return { resources, offset: offset + resources.length };
      }, 3),
    );
    expect(seen).toEqual(items);
    expect(asked).toEqual([0, 3, 6]);
  });

  it('still advances when the service echoes the request offset', async () => {
    const asked: number[] = [];
    const seen = await collect(
      walk(async (offset, limit) => {
        asked.push(offset);
        return { resources: items.slice(offset, offset + limit), offset };
      }, 7),
    );
    expect(seen).toEqual(items);
    // A full last page costs one more call that comes back empty.
    expect(asked).toEqual([0, 7]);
  });
});
