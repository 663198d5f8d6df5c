// Resources refused for a rejected key fail once, then wait quietly, and are enqueued the moment the
// service accepts a key again (over real HTTP to the emulator, with a key file swapped like a Secret).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wakeOnAuthRestored } from '../../../src/controllers/managed/auth-wake.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import { ServiceError } from '../../../src/service/errors.ts';
import { FileKeySource } from '../../../src/service/key-source.ts';
import { secretVolume } from '../../support/secret-volume.ts';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});

const signal = new AbortController().signal;
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ status: (error as ServiceError).status }),
  );

describe('wakeOnAuthRestored', () => {
  it('fails once per resource, then holds it until the key is accepted, and enqueues it then', async () => {
    const volume = secretVolume('wrong-key');
    const client = new ServiceClient({
      baseUrl: emu.url,
      apiKey: new FileKeySource(volume.path, { checkMs: 10 }),
      authGate: { probeDelayMs: 60_000, keyCheckMs: 10 },
    });
    const enqueued: string[] = [];
    let release: () => void = () => {};
    const late = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reconcile = wakeOnAuthRestored(
      client,
      async (key) => {
        if (key === 'late') {
          // Refused before the key is fixed, but its failure arrives after the wake-up has gone out.
          const refused = await outcome(client.listProviders());
          expect(refused).toEqual({ status: 401 });
          await late;
          throw new ServiceError({
            status: 401,
            detail: 'held',
            endpoint: 'GET /x',
            path: '/x',
            retryable: false,
            attempts: 0,
          });
        }
        await client.listProviders();
      },
      (key) => enqueued.push(key),
    );
    try {
      expect(await outcome(reconcile('a', signal))).toEqual({ status: 401 });
      expect(await outcome(reconcile('a', signal))).toEqual({ value: undefined }); // held, quietly
      expect(await outcome(reconcile('b', signal))).toEqual({ status: 401 });
      const lateRun = outcome(reconcile('late', signal));
      expect(enqueued).toEqual([]);

      volume.swap('dev-key');
      await expect.poll(() => enqueued, { timeout: 5_000 }).toEqual(['a', 'b']);
      release();
      expect(await lateRun).toEqual({ status: 401 });
      expect(enqueued).toEqual(['a', 'b', 'late']); // not left waiting for a wake-up that has passed
      expect(await outcome(reconcile('a', signal))).toEqual({ value: undefined });
    } finally {
      await client.close();
    }
  });

  it('leaves a 401 an ordinary failure when the client has no auth gate', async () => {
    const client = new ServiceClient({ baseUrl: emu.url, apiKey: 'wrong-key' });
    const reconcile = wakeOnAuthRestored(
      client,
      async () => {
        await client.listProviders();
      },
      () => {},
    );
    try {
      for (let i = 0; i < 3; i++) expect(await outcome(reconcile('a', signal))).toEqual({ status: 401 });
    } finally {
      await client.close();
    }
  });
});
