// The client's log methods (the hosted service's extras): against the emulator over real HTTP for the
// three endpoints, the page walk and the POST retry rule; against a stub for tolerant reading.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultSeedKeys as keys } from '../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { ServiceContractError, ServiceError } from '../../src/service/errors.ts';
import { type HttpStub, startStub } from './http-stub.ts';

const BUILD = 'POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs';
let emulator: RunningEmulator;
let client: ServiceClient;

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${emulator.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status === 204 ? undefined : res.json();
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, stepMs: 0 });
  client = new ServiceClient({
    baseUrl: emulator.url,
    apiKey: keys.dev,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, maxElapsedMs: 5_000 },
  });
});
beforeEach(() => admin('POST', '/_emulator/reset'));
afterAll(async () => {
  await client.close();
  await emulator.close();
});

async function failing(image: string) {
  const d = await client.createDeployment({
    name: `logs-${image.replace(/\W/g, '-')}`,
    source: 'internal_docker',
    source_config: {},
    source_revision_config: { image_uri: image },
    secrets: [],
  });
  return { deploymentId: d.id, revisionId: d.latest_revision_id! };
}

const collect = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('logs', () => {
  it('reads a page of the build log, a revision’s deploy log and the deployment’s deploy log', async () => {
    const ids = await failing('agent:fail-build');
    const tail = await client.readLogs({ ...ids, kind: 'build' }, { order: 'desc', limit: 3 });
    expect(tail.logs.map((l) => l.level)).toEqual(['error', 'error', 'error']);
    expect(tail.logs[0]!.message).toBe('Build failed: exit code 1');
    expect(tail.next_offset).toBe(3);
    expect(tail.rejected).toEqual([]);

    const crash = await failing('agent:fail-deploy');
    const deploy = await client.readLogs({ ...crash, kind: 'deploy' }, { order: 'asc', limit: 1000 });
    const all = await client.readLogs(
      { deploymentId: crash.deploymentId, kind: 'deploy' },
      { order: 'asc', limit: 1000 },
    );
    expect(all.logs).toEqual(deploy.logs);
    expect(deploy.next_offset).toBeNull();
  });

  it('walks every page from an offset, with the filters', async () => {
    const ids = await failing('agent:fail-build');
    const target = { ...ids, kind: 'build' as const };
    const whole = (await client.readLogs(target, { order: 'asc', limit: 1000 })).logs;
    expect(await collect(client.iterateLogs(target, { order: 'asc', limit: 2 }))).toEqual(whole);
    expect(await collect(client.iterateLogs(target, { order: 'asc', limit: 3 }, { offset: 4 }))).toEqual(
      whole.slice(4),
    );
    const errors = await collect(client.iterateLogs(target, { order: 'asc', level: 'error', limit: 2 }));
    expect(errors).toEqual(whole.filter((l) => l.level === 'error'));
  });

  it('answers a typed 404, and sends a POST that got a 503 only once', async () => {
    const ids = await failing('agent:fail-build');
    const unknown = { ...ids, revisionId: '00000000-0000-4000-8000-000000000000', kind: 'build' as const };
    const notFound = await client.readLogs(unknown, { order: 'desc', limit: 5 }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(ServiceError);
    expect((notFound as ServiceError).isNotFound).toBe(true);

    await admin('POST', '/_emulator/faults', { error_rate: 1, statuses: [503], paths: [BUILD] });
    await admin('POST', '/_emulator/calls/reset');
    const unavailable = await client
      .readLogs({ ...ids, kind: 'build' }, { order: 'desc', limit: 5 })
      .catch((e: unknown) => e);
    expect((unavailable as ServiceError).status).toBe(503);
    const state = (await admin('GET', '/_emulator/state')) as { calls: Record<string, number> };
    expect(state.calls[BUILD]).toBe(1);
  });
});

describe('tolerant reading of logs', () => {
  let stub: HttpStub;
  let stubClient: ServiceClient;
  const target = {
    deploymentId: '11111111-1111-4111-8111-111111111111',
    revisionId: '22222222-2222-4222-8222-222222222222',
    kind: 'build' as const,
  };
  beforeAll(async () => {
    stub = await startStub((req, res) => {
      const body = JSON.parse(req.body) as { offset?: number };
      res.setHeader('content-type', 'application/json');
      // No next_offset at all, an unknown level and an extra field: kept; an entry without a message: left out.
      const page =
        (body.offset ?? 0) === 0
          ? {
              logs: [
                { message: 'a', level: 'notice', timestamp: 1, extra: true },
                { level: 'info', timestamp: 2 },
              ],
              next_offset: 2,
            }
          : { logs: [{ message: 'c', level: 'info', timestamp: 3 }] };
      res.end(JSON.stringify(page));
    });
    stubClient = new ServiceClient({ baseUrl: stub.url, apiKey: 'k' });
  });
  afterAll(async () => {
    await stubClient.close();
    await stub.close();
  });

  it('keeps what it does not know, leaves a broken entry out, and ends a walk without next_offset', async () => {
    const page = await stubClient.readLogs(target, { order: 'asc', limit: 2 });
    expect(page.logs).toEqual([{ message: 'a', level: 'notice', timestamp: 1, extra: true }]);
    expect(page.rejected).toHaveLength(1);
    expect(page.rejected[0]!.error).toBeInstanceOf(ServiceContractError);
    expect(page.rejected[0]!.error.message).toContain('logs[1].message');

    const left: number[] = [];
    const all = await collect(
      stubClient.iterateLogs(target, { order: 'asc', limit: 2 }, { onRejected: (i) => left.push(i.index) }),
    );
    expect(all.map((l) => l.message)).toEqual(['a', 'c']);
    expect(left).toEqual([1]);
    await expect(collect(stubClient.iterateLogs(target, { order: 'asc', limit: 2 }))).rejects.toBeInstanceOf(
      ServiceContractError,
    );
  });
});
