// Reaching the real apiserver the ways kubectl does: a KUBECONFIG list whose cluster and user live in
// different files (KubeClient, and the operator itself), an exec plugin whose token rotates, one whose
// client certificate rotates (the test apiserver trusts a test CA for client certificates), and the
// in-cluster service account whose token file rotates.
//
// Rotation is real: each token is minted by TokenRequest bound to its own Secret, and deleting the
// Secret makes the apiserver refuse the token (the probe below waits until it does, past the
// apiserver's authentication cache). In-cluster runs with the service-account directory and the
// KUBERNETES_SERVICE_* variables injected, since /var/run/secrets is not ours to write.
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { KubeClient } from '../../src/runtime/kube.ts';
import type { KubeError } from '../../src/runtime/kube-errors.ts';
import { CONFIGMAPS, type KubeObject } from '../../src/runtime/kube-objects.ts';
import { loadKubeconfig } from '../../src/runtime/kubeconfig.ts';
import { agentDeployment, apply, setUp, waitFor } from '../controllers/deployment/support.ts';
import { testCa } from '../support/certs.ts';
import { execPlugin } from '../support/exec-plugin.ts';
import {
  adminKubeConfig,
  allowConfigMapReads,
  boundServiceAccountToken,
  createTestNamespace,
  kubectl,
} from '../support/kube.ts';
import { startOperator } from '../support/operator.ts';

const SELF_SUBJECT_REVIEWS = {
  group: 'authentication.k8s.io',
  version: 'v1',
  plural: 'selfsubjectreviews',
  namespaced: false,
};
const dir = mkdtempSync(join(tmpdir(), 'kube-access-'));
const admin = adminKubeConfig();
const { server, caData } = admin.getCurrentCluster()!;
const ca = Buffer.from(caData!, 'base64');
const probeAgent = new Agent({ connect: { ca } });
const clients: KubeClient[] = [];
let ns: string;

beforeAll(async () => {
  ns = await createTestNamespace('rt-access');
  await allowConfigMapReads(ns, 'reader');
  await kubectl(['create', 'configmap', 'probe', '-n', ns, '--from-literal=k=v']);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await probeAgent.close();
});

let files = 0;
const writeConfig = (config: object) => {
  const path = join(dir, `kubeconfig-${files++}`);
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
};
const clusterEntry = { name: 'test', cluster: { server, 'certificate-authority-data': caData } };
const contextEntry = { name: 'reader', context: { cluster: 'test', user: 'reader', namespace: 'ignored' } };
const oneFile = (user: object) =>
  writeConfig({
    clusters: [clusterEntry],
    users: [{ name: 'reader', user }],
    contexts: [contextEntry],
    'current-context': 'reader',
  });

async function client(kubeconfig: ReturnType<typeof loadKubeconfig>): Promise<KubeClient> {
  const c = await KubeClient.fromKubeConfig(kubeconfig);
  clients.push(c);
  return c;
}
const probeNames = async (c: KubeClient) =>
  (await c.list(CONFIGMAPS, { namespace: ns })).items.map((i) => i.metadata.name);

/** What the apiserver answers to this token now, straight, without our client. */
const statusFor = async (token: string) => {
  const res = await request(`${server}/api/v1/namespaces/${ns}/configmaps`, {
    headers: { authorization: `Bearer ${token}` },
    dispatcher: probeAgent,
  });
  await res.body.dump();
  return res.statusCode;
};
/** Deletes the Secret the token is bound to and waits until the apiserver refuses the token. */
async function revoke(secret: string, token: string): Promise<void> {
  expect(await statusFor(token)).toBe(200);
  await kubectl(['delete', 'secret', secret, '-n', ns]);
  await vi.waitFor(async () => expect(await statusFor(token)).toBe(401), { timeout: 45_000, interval: 500 });
}

describe('KUBECONFIG lists', () => {
  it('KubeClient uses a context whose cluster and user are in different files', async () => {
    const token = await boundServiceAccountToken(ns, 'reader', 'list-token');
    const clusterFile = writeConfig({
      clusters: [clusterEntry],
      contexts: [contextEntry],
      'current-context': 'reader',
    });
    // The later file's cluster of the same name (a dead port) and current-context must lose.
    const userFile = writeConfig({
      clusters: [{ name: 'test', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'reader', user: { token } }],
      'current-context': 'nowhere',
    });
    const kc = loadKubeconfig({ env: { KUBECONFIG: `${join(dir, 'missing')}:${clusterFile}:${userFile}` } });
    const reader = await client(kc);
    expect(await probeNames(reader)).toEqual(['probe']);
    // It is the ServiceAccount of the second file talking, not some admin: other namespaces are closed.
    const denied = await reader.list(CONFIGMAPS, { namespace: 'default' }).catch((e: KubeError) => e);
    expect((denied as KubeError).status).toBe(403);
  });

  it('the operator runs with KUBECONFIG=clusterFile:userFile and no --kubeconfig', async () => {
    const { namespace, emu } = await setUp('access-op');
    const clusterFile = writeConfig({
      clusters: [clusterEntry],
      contexts: [{ name: 'admin', context: { cluster: 'test', user: 'admin' } }],
      'current-context': 'admin',
    });
    const userFile = writeConfig({
      users: [{ name: 'admin', user: { token: admin.getCurrentUser()!.token } }],
    });
    const operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      kubeconfig: null,
      env: { KUBECONFIG: `${clusterFile}:${userFile}` },
    });
    try {
      const started = await operator.waitForLog(/operator starting/);
      expect(JSON.parse(started)).toMatchObject({ kubeconfig: `${clusterFile}:${userFile} (context admin)` });
      await apply(
        namespace,
        agentDeployment('via-list', {
          source: 'internal_docker',
          sourceRevisionConfig: { imageUri: 'agent:1' },
        }),
      );
      await waitFor(namespace, 'via-list', 'condition=Ready');
    } finally {
      await operator.kill();
      await emu.close();
    }
  });
});

describe('exec credential plugins', () => {
  it('keeps working when the plugin’s short-lived token is replaced and the old one revoked', async () => {
    const [a, b] = [
      await boundServiceAccountToken(ns, 'reader', 'exec-a'),
      await boundServiceAccountToken(ns, 'reader', 'exec-b'),
    ];
    const plugin = execPlugin({ token: a, expiresInSeconds: 2 });
    const reader = await client(loadKubeconfig({ file: oneFile({ exec: plugin.exec }), env: {} }));
    expect(await probeNames(reader)).toEqual(['probe']);

    plugin.setToken(b);
    await revoke('exec-a', a);
    for (let i = 0; i < 6; i++) {
      expect(await probeNames(reader)).toEqual(['probe']);
      await sleep(500);
    }
    expect(plugin.runs()).toBeGreaterThanOrEqual(2);
  });

  it('runs the plugin again when the apiserver refuses a token that has no expiry', async () => {
    const [a, b] = [
      await boundServiceAccountToken(ns, 'reader', 'exec-c'),
      await boundServiceAccountToken(ns, 'reader', 'exec-d'),
    ];
    const plugin = execPlugin({ token: a });
    const reader = await client(loadKubeconfig({ file: oneFile({ exec: plugin.exec }), env: {} }));
    expect(await probeNames(reader)).toEqual(['probe']);
    expect(plugin.runs()).toBe(1);

    plugin.setToken(b);
    await revoke('exec-c', a);
    // The cached token is refused once; the plugin runs again and the same call succeeds.
    expect(await probeNames(reader)).toEqual(['probe']);
    expect(plugin.runs()).toBe(2);
  });
});

describe('exec credential plugins with client certificates', () => {
  it('presents the new certificate once the old one expires: the apiserver sees the new user', async () => {
    const ca = testCa(inject('clientCaDir'));
    const credential = (user: string) => {
      const { cert, key } = ca.issue(user);
      return {
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: {
          clientCertificateData: cert,
          clientKeyData: key,
          expirationTimestamp: new Date(Date.now() + 2000).toISOString(),
        },
      };
    };
    const plugin = execPlugin();
    plugin.setCredential(credential('cert-alice'));
    const c = await client(loadKubeconfig({ file: oneFile({ exec: plugin.exec }), env: {} }));
    // SelfSubjectReview: who the apiserver takes the caller for (any authenticated user may ask).
    const whoAmI = async () =>
      (
        await c.create<KubeObject & { status?: { userInfo?: { username?: string } } }>(SELF_SUBJECT_REVIEWS, {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'SelfSubjectReview',
          metadata: {} as KubeObject['metadata'],
        })
      ).status?.userInfo?.username;
    expect(await whoAmI()).toBe('cert-alice');

    plugin.setCredential(credential('cert-bob'));
    await vi.waitFor(async () => expect(await whoAmI()).toBe('cert-bob'), { timeout: 10_000, interval: 500 });
    expect(plugin.runs()).toBeGreaterThanOrEqual(2);
  });
});

describe('in-cluster', () => {
  it('re-reads the service-account token file the kubelet rotates, watches included', async () => {
    const [a, b] = [
      await boundServiceAccountToken(ns, 'reader', 'pod-a'),
      await boundServiceAccountToken(ns, 'reader', 'pod-b'),
    ];
    const serviceAccountDir = mkdtempSync(join(dir, 'serviceaccount-'));
    writeFileSync(join(serviceAccountDir, 'ca.crt'), ca);
    writeFileSync(join(serviceAccountDir, 'token'), a);
    const kc = loadKubeconfig({
      env: {
        HOME: mkdtempSync(join(dir, 'home-')),
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: new URL(server).port,
      },
      serviceAccountDir,
    });
    expect(kc.context).toBe('in-cluster');
    const pod = await client(kc);
    const { resourceVersion } = await pod.list(CONFIGMAPS, { namespace: ns });

    // The kubelet swaps the file atomically.
    writeFileSync(join(serviceAccountDir, 'token.new'), b);
    renameSync(join(serviceAccountDir, 'token.new'), join(serviceAccountDir, 'token'));
    await revoke('pod-a', a);
    // The first call after the revocation is a watch: it too is refused once, then sent with the new token.
    const events = await pod.watch(CONFIGMAPS, { namespace: ns, resourceVersion, timeoutSeconds: 1 });
    for await (const _ of events) {
      // the watch ends on its own after a second
    }
    expect(await probeNames(pod)).toEqual(['probe']);
  });
});
