// The connection pool follows the client certificate: a changed certificate (an exec plugin handing out
// a new one) gets new connections, and the old pool closes once its requests are done.
//
// The test control plane has no --client-ca-file, so it cannot authenticate client certificates; the
// peer here is a plain TLS server that requires one and answers with the certificate's common name,
// which is exactly what is under test (which certificate a connection presents), not Kubernetes.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { type Dispatcher, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserCredentials } from '../../src/runtime/kube-credentials.ts';
import { KubeDispatchers } from '../../src/runtime/kube-dispatchers.ts';
import type { Cluster } from '../../src/runtime/kubeconfig.ts';
import { type Pem, testCa } from '../support/certs.ts';
import { execPlugin } from '../support/exec-plugin.ts';

let server: Server;
let cluster: Cluster;
let alice: Pem;
let bob: Pem;

beforeAll(async () => {
  const ca = testCa();
  const serving = ca.issue('server', { server: true });
  alice = ca.issue('alice');
  bob = ca.issue('bob');
  server = createServer(
    { ...serving, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const name = (req.socket as TLSSocket).getPeerCertificate().subject.CN;
      setTimeout(() => res.end(name), req.url === '/slow' ? 500 : 0);
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  cluster = {
    name: 'tls',
    server: `https://127.0.0.1:${port}`,
    caData: Buffer.from(ca.cert).toString('base64'),
    skipTLSVerify: false,
  };
});
afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

const whoAmI = async (dispatcher: Dispatcher, path = '/') =>
  (await request(`${cluster.server}${path}`, { dispatcher })).body.text();

describe('KubeDispatchers', () => {
  it('keeps one pool while the certificate stays, and swaps it when the certificate changes', async () => {
    const dispatchers = new KubeDispatchers(cluster);
    const first = dispatchers.pooled({ headers: {}, ...alice });
    expect(dispatchers.pooled({ headers: { authorization: 'Bearer other' }, ...alice })).toBe(first);
    expect(await whoAmI(first)).toBe('alice');

    const slow = whoAmI(first, '/slow');
    await sleep(100); // the slow request is on the wire
    const second = dispatchers.pooled({ headers: {}, ...bob });
    expect(second).not.toBe(first);
    expect(await whoAmI(second)).toBe('bob');
    expect(dispatchers.retiring).toBe(1);
    // The old pool lets its request finish, then closes.
    expect(await slow).toBe('alice');
    await expect(whoAmI(first)).rejects.toThrow(/closed/i);
    await vi.waitFor(() => expect(dispatchers.retiring).toBe(0), { timeout: 2000 });

    await dispatchers.destroy();
    await expect(whoAmI(second)).rejects.toThrow(/destroyed/i);
  });

  it('presents the certificate an exec plugin hands out, and the new one once it expired', async () => {
    const plugin = execPlugin();
    const credential = (pem: Pem, expiresInMs: number) => ({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: {
        clientCertificateData: pem.cert,
        clientKeyData: pem.key,
        expirationTimestamp: new Date(Date.now() + expiresInMs).toISOString(),
      },
    });
    plugin.setCredential(credential(alice, 1000));
    const creds = new UserCredentials({ name: 'cert-user', exec: plugin.exec });
    const dispatchers = new KubeDispatchers(cluster);
    try {
      expect(await whoAmI(dispatchers.pooled(await creds.get()))).toBe('alice');
      plugin.setCredential(credential(bob, 3600_000));
      expect(await whoAmI(dispatchers.pooled(await creds.get()))).toBe('alice');
      await sleep(1100);
      expect(await whoAmI(dispatchers.pooled(await creds.get()))).toBe('bob');
      expect(plugin.runs()).toBe(2);
    } finally {
      await dispatchers.destroy();
    }
  });
});
