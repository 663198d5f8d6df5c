// The API key never shows in an error's message, stack, JSON or inspection, nor in what the metrics
// hook sees, whatever goes wrong. A canary key is used and every rendering is searched for it.
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.ts';
import { type CallRecord, ServiceClient } from '../../src/service/client.ts';
import { type HttpStub, json, startStub } from './http-stub.ts';

const canary = 'canary-7f3a9c0e-SECRET-d41d8cd9';

/** Every way an error is commonly turned into text: message, stack, JSON, inspection, its causes. */
function renderings(error: unknown): string[] {
  const out = [String(error), inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error) ?? ''];
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    out.push(e.message, e.stack ?? '', JSON.stringify(e) ?? '', inspect(e, { showHidden: true }));
  }
  return out;
}

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  const error = await call().then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).not.toBe('expected a failure');
  return error;
}

let stub: HttpStub;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
beforeAll(async () => {
  // Misbehaves in every way: echoes the key back, breaks the contract, hangs, resets.
  stub = await startStub((req, res) => {
    if (req.url.includes('echo')) json(res, 400, { detail: `bad key ${req.headers['x-api-key']}` });
    else if (req.url.includes('contract')) json(res, 200, { id: req.headers['x-api-key'] });
    else if (req.url.includes('reset')) res.socket?.destroy();
    // anything else hangs until the client gives up
  });
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', mode: 'cloud' });
});
afterAll(async () => {
  await stub.close();
  await emulator.close();
});

describe('the API key stays secret', () => {
  it('in errors from the service, the network, the contract, timeouts and aborts', async () => {
    const calls: CallRecord[] = [];
    const options = {
      apiKey: canary,
      onCall: (c: CallRecord) => calls.push(c),
      timeouts: { connectMs: 500, headersMs: 300, bodyMs: 300 },
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, maxElapsedMs: 2_000 },
    };
    const toStub = new ServiceClient({ ...options, baseUrl: stub.url });
    const toEmulator = new ServiceClient({ ...options, baseUrl: emulator.url });
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const toNowhere = new ServiceClient({ ...options, baseUrl: `http://127.0.0.1:${port}` });

    const errors = [
      await failure(() => toEmulator.listDeployments()), // 401: unknown key
      await failure(() => toStub.getListener('echo')),
      await failure(() => toStub.getListener('contract')),
      await failure(() => toStub.getListener('reset')),
      await failure(() => toStub.getListener('hang')),
      await failure(() => toStub.getListener('hang', { signal: AbortSignal.timeout(50) })),
      await failure(() =>
        toNowhere.createDeployment({
          name: 'n',
          source: 'codehost',
          source_config: {},
          source_revision_config: {},
          secrets: [],
        }),
      ),
    ];
    expect((errors[0] as { status?: number }).status).toBe(401);
    expect((errors[1] as Error).message).toContain('bad key [redacted]');
    for (const error of errors) {
      for (const text of renderings(error)) expect(text).not.toContain(canary);
    }
    expect(calls.length).toBeGreaterThanOrEqual(errors.length);
    expect(JSON.stringify(calls)).not.toContain(canary);
    for (const client of [toStub, toEmulator, toNowhere]) {
      expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(canary);
      expect(JSON.stringify(client)).not.toContain(canary);
      await client.close();
    }
  });
});
