// Retry, backoff, timeout and abort behaviour of the client, against a real HTTP server on 127.0.0.1
// that misbehaves on cue (the emulator's fault injection is exercised in client.test.ts).
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallRecord, ServiceClient, type ServiceClientOptions } from '../../src/service/client.ts';
import { ServiceError } from '../../src/service/errors.ts';
import { type HttpStub, json, listenerBody, type StubHandler, startStub } from './http-stub.ts';

const listenerId = listenerBody.id;
const createBody = {
  compute_type: 'k8s' as const,
  compute_id: 'c1',
  compute_config: { k8s_namespaces: ['default'] },
};

let stub: HttpStub | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

async function setup(handler: StubHandler, options: Partial<ServiceClientOptions> = {}) {
  stub = await startStub(handler);
  const calls: CallRecord[] = [];
  client = new ServiceClient({
    baseUrl: stub.url,
    apiKey: 'k',
    retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 2_000, maxElapsedMs: 10_000 },
    onCall: (c) => calls.push(c),
    ...options,
  });
  return { stub, client, calls };
}

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('retries of idempotent calls', () => {
  it('repeats a GET on 502, 503 and 504 until it succeeds, and reports every attempt', async () => {
    const statuses = [502, 503, 504];
    const { stub, client, calls } = await setup((_req, res, n) => {
      const status = statuses[n - 1];
      if (status) json(res, status, { detail: 'try later' });
      else json(res, 200, listenerBody);
    });
    const listener = await client.getListener(listenerId);
    expect(listener.id).toBe(listenerId);
    expect(stub.requests).toHaveLength(4);
    expect(calls.map((c) => [c.attempt, c.status])).toEqual([
      [1, 502],
      [2, 503],
      [3, 504],
      [4, 200],
    ]);
    expect(calls.every((c) => c.endpoint === 'GET /v2/listeners/{listener_id}' && c.method === 'GET')).toBe(
      true,
    );
    expect(calls.every((c) => c.durationMs >= 0)).toBe(true);
  });

  it('stops after maxAttempts with the last error, marked retryable', async () => {
    const { stub, client } = await setup((_req, res) => json(res, 503, { detail: 'overloaded' }));
    const error = await rejection(client.getListener(listenerId));
    expect(stub.requests).toHaveLength(4);
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(4);
    expect(error.retryable).toBe(true);
    expect(error.detail).toBe('overloaded');
  });

  it('does not repeat a 500 or a 4xx', async () => {
    const { stub, client } = await setup((_req, res, n) => json(res, n === 1 ? 500 : 404, { detail: 'x' }));
    expect((await rejection(client.getListener(listenerId))).status).toBe(500);
    expect((await rejection(client.getListener(listenerId))).isNotFound).toBe(true);
    expect(stub.requests).toHaveLength(2);
  });

  it('repeats a GET and a PATCH after a connection reset', async () => {
    const { stub, client, calls } = await setup((req, res, n) => {
      if (n % 2 === 1) res.socket?.destroy();
      else if (req.method === 'PATCH') json(res, 200, listenerBody);
      else json(res, 200, listenerBody);
    });
    await client.getListener(listenerId);
    await client.patchListener(listenerId, { compute_config: { k8s_namespaces: ['a'] } });
    expect(stub.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'PATCH', 'PATCH']);
    expect(calls.map((c) => c.status)).toEqual(['error', 200, 'error', 200]);
  });

  it('repeats a GET whose response headers do not come in time', async () => {
    const { stub, client } = await setup(
      (_req, res, n) => {
        if (n > 1) json(res, 200, listenerBody);
      },
      { timeouts: { connectMs: 1_000, headersMs: 200, bodyMs: 1_000 } },
    );
    await client.getListener(listenerId);
    expect(stub.requests).toHaveLength(2);
  });
});

describe('retries of POST', () => {
  it('does not repeat a POST after a 5xx: the service may have acted', async () => {
    for (const status of [502, 503, 504]) {
      const { stub, client } = await setup((_req, res) => json(res, status, { detail: 'gateway' }));
      const error = await rejection(client.createListener(createBody));
      expect(stub.requests).toHaveLength(1);
      expect(error.status).toBe(status);
      expect(error.attempts).toBe(1);
      // Transient, so a caller that first checks what exists may try again later.
      expect(error.retryable).toBe(true);
      await client.close();
      await stub.close();
    }
  });

  it('does not repeat a POST after a connection reset or a headers timeout', async () => {
    const { stub, client } = await setup(
      (req, res) => {
        if (req.url.endsWith('reset')) res.socket?.destroy();
      },
      { timeouts: { connectMs: 1_000, headersMs: 200, bodyMs: 1_000 } },
    );
    const reset = await rejection(client.connectAgent('reset', { oauth_token_id: 't' }));
    expect(reset.status).toBeUndefined();
    expect(reset.isNetworkError).toBe(true);
    const slow = await rejection(client.connectAgent('slow', { oauth_token_id: 't' }));
    expect(slow.detail).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(stub.requests.map((r) => r.url)).toEqual([
      '/v2/auth/agents/reset/connections',
      '/v2/auth/agents/slow/connections',
    ]);
  });

  it('repeats a POST after a 429: it was refused before being processed', async () => {
    const { stub, client } = await setup((_req, res, n) =>
      n === 1 ? json(res, 429, { detail: 'slow down' }) : json(res, 201, listenerBody),
    );
    await client.createListener(createBody);
    expect(stub.requests).toHaveLength(2);
    expect(JSON.parse(stub.requests[1]!.body)).toEqual(createBody);
  });

  it('repeats a POST whose connection was refused: it was never sent', async () => {
    const calls: CallRecord[] = [];
    client = new ServiceClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      apiKey: 'k',
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxElapsedMs: 5_000 },
      onCall: (c) => calls.push(c),
    });
    const error = await rejection(client.createListener(createBody));
    expect(calls.map((c) => [c.attempt, c.status])).toEqual([
      [1, 'error'],
      [2, 'error'],
      [3, 'error'],
    ]);
    expect(error.detail).toContain('ECONNREFUSED');
    expect(error.attempts).toBe(3);
    expect(error.retryable).toBe(true);
  });
});

describe('Retry-After', () => {
  it('waits the seconds the service asks for before the next attempt', async () => {
    const { stub, client } = await setup((_req, res, n) =>
      n === 1
        ? json(res, 429, { detail: 'slow down' }, { 'retry-after': '1' })
        : json(res, 200, listenerBody),
    );
    await client.getListener(listenerId);
    const [first, second] = stub.requests;
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(gap).toBeLessThan(1_500);
  });

  it('reads an HTTP date', async () => {
    const { stub, client } = await setup((_req, res, n) =>
      n === 1
        ? json(res, 503, { detail: 'later' }, { 'retry-after': new Date(Date.now() + 2_000).toUTCString() })
        : json(res, 200, listenerBody),
    );
    await client.getListener(listenerId);
    const gap = stub.requests[1]!.at - stub.requests[0]!.at;
    // The date has whole-second resolution, so the wait is between 1 and 2 s.
    expect(gap).toBeGreaterThanOrEqual(900);
    expect(gap).toBeLessThan(2_300);
  });

  it('caps a long Retry-After at maxDelayMs and passes it on in the error', async () => {
    const { stub, client } = await setup(
      (_req, res) => json(res, 429, { detail: 'quota' }, { 'retry-after': '3600' }),
      { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 300, maxElapsedMs: 10_000 } },
    );
    const error = await rejection(client.getListener(listenerId));
    const gap = stub.requests[1]!.at - stub.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(280);
    expect(gap).toBeLessThan(1_000);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(error.isRateLimited).toBe(true);
  });
});

describe('bounded time', () => {
  it('gives up within maxElapsedMs however many attempts are allowed', async () => {
    const { stub, client } = await setup((_req, res) => json(res, 503, { detail: 'down' }), {
      retry: { maxAttempts: 1_000, baseDelayMs: 50, maxDelayMs: 200, maxElapsedMs: 800 },
    });
    const started = performance.now();
    const error = await rejection(client.listListeners());
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(1_000);
    expect(stub.requests.length).toBeGreaterThan(2);
    // The service saw every attempt but possibly the last: one the budget cut as it started.
    expect(stub.requests.length).toBeLessThanOrEqual(error.attempts);
    expect(stub.requests.length).toBeGreaterThanOrEqual(error.attempts - 1);
  });

  it('does not start a Retry-After wait that would end past the budget', async () => {
    const { stub, client } = await setup(
      (_req, res) => json(res, 503, { detail: 'down' }, { 'retry-after': '5' }),
      { retry: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 10_000, maxElapsedMs: 1_000 } },
    );
    const started = performance.now();
    await rejection(client.listListeners());
    expect(performance.now() - started).toBeLessThan(500);
    expect(stub.requests).toHaveLength(1);
  });

  it('cuts an attempt that is still waiting for the service when the budget ends', async () => {
    const { client } = await setup(() => {}, {
      timeouts: { connectMs: 1_000, headersMs: 60_000, bodyMs: 60_000 },
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, maxElapsedMs: 500 },
    });
    const started = performance.now();
    const error = await rejection(client.getListener(listenerId));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1_000);
    expect(error.detail).toContain('500 ms budget');
    expect(error.status).toBeUndefined();
  });
});

describe('AbortSignal', () => {
  it('aborts the backoff wait', async () => {
    const { stub, client } = await setup((_req, res) =>
      json(res, 503, { detail: 'down' }, { 'retry-after': '10' }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 150);
    const started = performance.now();
    await expect(client.getListener(listenerId, { signal: controller.signal })).rejects.toThrow(
      'shutting down',
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(stub.requests).toHaveLength(1);
  });

  it('aborts a request in flight and reports the attempt', async () => {
    const { stub, client, calls } = await setup(() => {});
    const started = performance.now();
    await expect(client.getListener(listenerId, { signal: AbortSignal.timeout(150) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(stub.requests).toHaveLength(1);
    expect(calls).toMatchObject([{ status: 'error', attempt: 1 }]);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { stub, client } = await setup((_req, res) => json(res, 200, listenerBody));
    await expect(
      client.getListener(listenerId, { signal: AbortSignal.abort(new Error('gone')) }),
    ).rejects.toThrow('gone');
    expect(stub.requests).toHaveLength(0);
  });
});
