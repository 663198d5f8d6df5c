// KubeClient against a local HTTP server that answers late or never: a caller's signal and the
// per-request deadline end a request at once, whatever phase it is in.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient, type KubeClientOptions } from '../../src/runtime/kube.ts';
import { CONFIGMAPS } from '../../src/runtime/kube-objects.ts';
import { type HttpStub, json, type StubHandler, startStub } from '../service/http-stub.ts';

let stub: HttpStub | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

async function clientOf(handler: StubHandler, options: KubeClientOptions = {}): Promise<KubeClient> {
  const started = await startStub(handler);
  stub = started;
  client = await KubeClient.fromKubeConfig(
    {
      getCurrentCluster: () => ({ name: 'stub', server: started.url, skipTLSVerify: false }),
      getCurrentUser: () => null,
    },
    options,
  );
  return client;
}

async function requestsReceived(n: number): Promise<void> {
  while ((stub?.requests.length ?? 0) < n) await sleep(5);
}

/** Aborts `controller` and resolves with how long `request` took to reject after that. */
async function msToRejectAfterAbort(request: Promise<unknown>, controller: AbortController, reason: Error) {
  request.catch(() => {});
  const aborted = performance.now();
  controller.abort(reason);
  await expect(request).rejects.toBe(reason);
  return performance.now() - aborted;
}

const never: StubHandler = () => {};

describe('a request aborted by its signal', () => {
  it('rejects at once with the reason while the server has not answered', async () => {
    const kube = await clientOf(never);
    const controller = new AbortController();
    const reason = new Error('stopped');
    const get = kube.get(CONFIGMAPS, 'a', 'ns', { signal: controller.signal });
    await requestsReceived(1);
    expect(await msToRejectAfterAbort(get, controller, reason)).toBeLessThan(500);
  });

  it('rejects at once with the reason while the response body is arriving', async () => {
    const kube = await clientOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"metadata":');
    });
    const controller = new AbortController();
    const reason = new Error('stopped');
    const patch = kube.mergePatch(CONFIGMAPS, 'a', 'ns', { data: { k: 'v' } }, { signal: controller.signal });
    await requestsReceived(1);
    await sleep(50);
    expect(await msToRejectAfterAbort(patch, controller, reason)).toBeLessThan(500);
  });

  it('is not sent when the signal is already aborted', async () => {
    const kube = await clientOf(never);
    const reason = new Error('stopped before');
    await expect(kube.get(CONFIGMAPS, 'a', 'ns', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(stub?.requests).toHaveLength(0);
  });

  it('ends a list on whichever page is in flight', async () => {
    const kube = await clientOf((_req, res, n) => {
      if (n === 1) json(res, 200, { items: [], metadata: { resourceVersion: '7', continue: 'next' } });
    });
    const controller = new AbortController();
    const reason = new Error('stopped');
    const list = kube.listAll(CONFIGMAPS, { namespace: 'ns', signal: controller.signal });
    await requestsReceived(2);
    expect(stub?.requests[1]?.url).toContain('continue=next');
    expect(await msToRejectAfterAbort(list, controller, reason)).toBeLessThan(500);
  });
});

describe('the per-request deadline', () => {
  it('ends a request the server never answers, alongside a caller signal that did not fire', async () => {
    const kube = await clientOf(never, { requestTimeoutMs: 100 });
    const signal = new AbortController().signal;
    const started = performance.now();
    await expect(kube.get(CONFIGMAPS, 'a', 'ns', { signal })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(signal.aborted).toBe(false);
  });
});
