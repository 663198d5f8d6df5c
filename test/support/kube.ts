// Helpers for tests against the real control plane started by controlplane.global.ts.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { installCrds as installCrdsWith } from '../../src/controlplane/crds.ts';
import { kubeconfigYaml } from '../../src/controlplane/kubeconfig.ts';

export function kubeconfigPath(): string {
  return inject('kubeconfigPath');
}

export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath());
  return kc;
}

/** Runs the real kubectl against the test control plane; rejects with kubectl's stderr. */
export async function kubectl(args: string[], options: { kubeconfig?: string; input?: string } = {}) {
  const run = promisify(execFile);
  const child = run('kubectl', ['--kubeconfig', options.kubeconfig ?? kubeconfigPath(), ...args], {
    encoding: 'utf8',
  });
  if (options.input !== undefined) {
    child.child.stdin?.end(options.input);
  }
  try {
    const { stdout, stderr } = await child;
    return { stdout, stderr };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr?.trim() || e.message);
  }
}

/** A fresh namespace per test file: the control plane has no namespace controller, so none is deleted. */
export async function createTestNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`.toLowerCase().slice(0, 63);
  await adminKubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name } } });
  return name;
}

/** Installs CRDs on the test control plane (see src/controlplane/crds.ts) and waits until they are served. */
export function installCrds(docs: object[], timeoutMs = 30_000): Promise<void> {
  return installCrdsWith(kubeconfigPath(), docs, {
    timeoutS: Math.ceil(timeoutMs / 1000),
    fieldManager: 'agent-deploy-tests',
  });
}

/**
 * Creates a ServiceAccount, mints a token for it through the TokenRequest API, and writes a
 * kubeconfig that authenticates as it: for running the operator with exactly the RBAC deploy/ grants.
 */
export async function serviceAccountKubeconfig(
  namespace: string,
  name: string,
  dir: string,
  expirationSeconds = 3600,
): Promise<string> {
  const kc = adminKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  const cluster = kc.getCurrentCluster()!;
  const caData = Buffer.from(cluster.caData!, 'base64').toString('utf8');
  const path = join(dir, `kubeconfig-${namespace}-${name}`);
  writeFileSync(
    path,
    kubeconfigYaml({ server: cluster.server, caData, user: `${namespace}-${name}`, token, namespace }),
    { mode: 0o600 },
  );
  return path;
}

/**
 * A token for a ServiceAccount, bound to a Secret created for it: deleting that Secret invalidates the
 * token (once the apiserver's authentication cache, about 10 s, lets go of it). For rotation tests.
 */
export async function boundServiceAccountToken(
  namespace: string,
  serviceAccount: string,
  secretName: string,
): Promise<string> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  try {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccount } } });
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: secretName }, type: 'Opaque' } });
  const request = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: {
      spec: {
        audiences: [],
        expirationSeconds: 3600,
        boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: secretName },
      },
    },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  return token;
}

/** Lets a ServiceAccount get, list and watch ConfigMaps in its namespace. */
export async function allowConfigMapReads(namespace: string, serviceAccount: string): Promise<void> {
  const name = `${serviceAccount}-configmap-reader`;
  const list = {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name, namespace },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
      },
    ],
  };
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify(list) });
}
