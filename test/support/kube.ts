// Helpers for tests against the real control plane started by controlplane.global.ts.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { inject } from 'vitest';
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

/**
 * Applies each CRD (server-side, through kubectl) and waits until the apiserver serves it.
 * Not through client-node's typed API: its model serializer drops fields it has no camelCase name
 * for, such as `x-kubernetes-validations`, which would silently remove every CEL rule.
 */
export async function installCrds(docs: object[], timeoutMs = 30_000): Promise<void> {
  const list = { apiVersion: 'v1', kind: 'List', items: docs };
  await kubectl(
    ['apply', '--server-side', '--force-conflicts', '--field-manager=agent-deploy-tests', '-f', '-'],
    {
      input: JSON.stringify(list),
    },
  );
  const names = docs.map((d) => `crd/${(d as V1CustomResourceDefinition).metadata!.name}`);
  await kubectl([
    'wait',
    '--for=condition=Established',
    `--timeout=${Math.ceil(timeoutMs / 1000)}s`,
    ...names,
  ]);
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
