// The auth gate: after a 401 every call is refused locally (a 401 naming the key source), the service is
// asked again by one probe at a time with a doubling, capped wait, and calls resume (listeners told)
// once a probe with a new key, or a call sent with one, is accepted.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/emulator/server.ts';
import { AuthGate, keyAccepted, type ProbeAnswer } from '../../src/service/auth-gate.ts';
import { type CallRecord, ServiceClient } from '../../src/service/client.ts';
import { ServiceError } from '../../src/service/errors.ts';
import { type ApiKeySource, FileKeySource } from '../../src/service/key-source.ts';
import { secretVolume } from '../support/secret-volume.ts';
import { json, startStub } from './http-stub.ts';

/** A key source the test changes by hand; counts reloads. */
function memoryKey(initial: string) {
  let key = initial;
  const source: ApiKeySource & { set(k: string): void; reloads: number } = {
    origin: { kind: 'file', path: '/keys/api-key' },
    reloads: 0,
    key: () => key,
    reload() {
      source.reloads++;
      return false;
    },
    set: (k) => {
      key = k;
    },
  };
  return source;
}

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('keyAccepted', () => {
  it('counts an answer given after authentication, not one a gateway or limiter may give first', () => {
    expect([200, 204, 403, 404, 409, 422].every(keyAccepted)).toBe(true);
    expect([undefined, 401, 408, 429, 500, 502, 503].some(keyAccepted)).toBe(false);
  });
});

describe('the gate on its own (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function gate(answer: (key: string) => ProbeAnswer) {
    const source = memoryKey('wrong');
    const probes: { at: number; key: string }[] = [];
    const g = new AuthGate(
      source,
      async (key) => {
        probes.push({ at: Date.now(), key });
        return answer(key);
      },
      { probeDelayMs: 1000, maxProbeDelayMs: 8000, keyCheckMs: 500 },
    );
    const reopened = vi.fn();
    g.onReopen(reopened);
    return { g, source, probes, reopened };
  }
  const byKey = (key: string): ProbeAnswer =>
    key === 'right' ? { status: 200, detail: '' } : { status: 401, detail: 'Invalid API key' };

  it('refuses locally with a 401 naming the key source, and re-reads the key after the 401', () => {
    const { g, source } = gate(byKey);
    g.check('GET /v2/deployments', '/v2/deployments'); // open: nothing thrown
    g.observe('wrong', 401, 'Invalid API key');
    expect(g.open).toBe(false);
    expect(source.reloads).toBe(1);
    let error: unknown;
    try {
      g.check('POST /v2/deployments', '/v2/deployments');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({
      status: 401,
      attempts: 0,
      detail: 'Invalid API key',
      retryable: false,
      keySource: { kind: 'file', path: '/keys/api-key' },
    });
    expect((error as Error).message).toBe(
      'POST /v2/deployments (/v2/deployments): HTTP 401 earlier, not sent again: Invalid API key',
    );
    g.stop();
  });

  it('probes with a doubling wait up to the cap, and nothing else while the key is unchanged', async () => {
    const { g, probes, reopened } = gate(byKey);
    g.observe('wrong', 401, 'Invalid API key');
    await vi.advanceTimersByTimeAsync(25_000);
    expect(probes.map((p) => p.at)).toEqual([1000, 3000, 7000, 15_000, 23_000]);
    expect(reopened).not.toHaveBeenCalled();
    g.stop();
  });

  it('probes a changed key within keyCheckMs, reopens once, and tells every listener', async () => {
    const { g, source, probes, reopened } = gate(byKey);
    const second = vi.fn();
    g.onReopen(second);
    g.observe('wrong', 401, 'Invalid API key');
    await vi.advanceTimersByTimeAsync(20_000); // the wait is at its cap of 8 s now
    const before = probes.length;
    source.set('right');
    await vi.advanceTimersByTimeAsync(500);
    expect(probes.slice(before)).toEqual([{ at: 20_500, key: 'right' }]);
    expect(g.open).toBe(true);
    expect([reopened.mock.calls.length, second.mock.calls.length]).toEqual([1, 1]);
    g.check('GET /v2/deployments', '/v2/deployments'); // open again: nothing thrown
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes.length).toBe(before + 1); // no probing once open
  });

  it('keeps the wait on a probe without an answer, and reopens on a call sent with another key', async () => {
    const { g, probes, reopened } = gate(() => ({ status: 503, detail: 'Service Unavailable' }));
    g.observe('wrong', 401, 'Invalid API key');
    await vi.advanceTimersByTimeAsync(4500);
    expect(probes.map((p) => p.at)).toEqual([1000, 2000, 3000, 4000]); // 5xx says nothing about the key
    g.observe('wrong', 200, ''); // sent before the gate closed, with the rejected key: no proof
    expect(g.open).toBe(false);
    g.observe('another', 200, '');
    expect(g.open).toBe(true);
    expect(reopened).toHaveBeenCalledTimes(1);
  });
});

describe('the gate in the client, over HTTP', () => {
  it('holds calls back until the key file is fixed, then resumes without a restart', async () => {
    const emu = await startEmulator({ port: 0 });
    const volume = secretVolume('wrong-key');
    const client = new ServiceClient({
      baseUrl: emu.url,
      apiKey: new FileKeySource(volume.path, { checkMs: 20 }),
      authGate: { probeDelayMs: 60_000, keyCheckMs: 20 }, // only a key change can reopen it here
    });
    const restored = vi.fn();
    client.onAuthRestored(restored);
    try {
      const first = await rejection(client.listProviders());
      expect(first).toMatchObject({
        status: 401,
        attempts: 1,
        keySource: { kind: 'file', path: volume.path },
      });

      const held = await Promise.all(Array.from({ length: 20 }, () => rejection(client.listProviders())));
      for (const e of held) expect(e).toMatchObject({ status: 401, attempts: 0, detail: first.detail });
      const state = async () =>
        (await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as {
          calls: Record<string, number>;
          responses: Record<string, number>;
        };
      expect((await state()).calls['GET /v2/auth/providers']).toBe(1); // the 20 never left the process

      volume.swap('dev-key');
      await expect.poll(() => restored.mock.calls.length, { timeout: 5_000 }).toBe(1);
      expect((await client.listProviders()).length).toBeGreaterThan(0);
      expect((await state()).responses['401']).toBe(1);
    } finally {
      await client.close();
      await emu.close();
    }
  });

  it('sends one probe at a time, however many calls are refused meanwhile', async () => {
    let inFlight = 0;
    let most = 0;
    const stub = await startStub((_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // A slow 401: probes would overlap if the gate sent a second one before the first was answered.
      setTimeout(() => {
        inFlight--;
        json(res, 401, { detail: 'Invalid API key' });
      }, 150);
    });
    const calls: CallRecord[] = [];
    const client = new ServiceClient({
      baseUrl: stub.url,
      apiKey: 'wrong-key',
      authGate: { probeDelayMs: 1, maxProbeDelayMs: 1, keyCheckMs: 1 },
      onCall: (c) => calls.push(c),
    });
    try {
      await rejection(client.listDeployments());
      let refused = 0;
      const until = performance.now() + 1000;
      while (performance.now() < until) {
        const errors = await Promise.all(
          Array.from({ length: 10 }, () => rejection(client.getListener('l'))),
        );
        refused += errors.filter((e) => e.attempts === 0).length;
        await sleep(5);
      }
      await client.close(); // waits for a probe in flight, and stops probing
      expect(refused).toBeGreaterThan(100);
      expect(most).toBe(1);
      // Every request after the first is a probe: about one per 150 ms answer, never one per call.
      const probes = stub.requests.length - 1;
      expect(probes).toBeGreaterThanOrEqual(2);
      expect(probes).toBeLessThanOrEqual(8);
      expect(stub.requests.slice(1).every((r) => r.url === '/v2/deployments?limit=1')).toBe(true);
      // Probes show in the metrics like any call (one in flight at close is aborted: recorded as an error).
      expect(calls.length).toBe(stub.requests.length);
      expect(calls.filter((c) => c.status === 401).length).toBeGreaterThanOrEqual(calls.length - 1);
    } finally {
      await client.close();
      await stub.close();
    }
  });
});
