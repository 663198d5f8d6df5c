// Installs CRDs the way a user does: server-side apply through kubectl, then wait until served.
// Not through client-node's typed API: its model serializer drops fields it has no camelCase name for,
// such as `x-kubernetes-validations`, which would silently remove every CEL rule.
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { crdDocuments } from '../api/crd.ts';

export async function installCrds(
  kubeconfig: string,
  docs: object[] = crdDocuments(),
  { timeoutS = 60, fieldManager = 'agent-deploy' } = {},
): Promise<void> {
  const kubectl = (args: string[], input?: string) => {
    const run = promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
    if (input !== undefined) run.child.stdin?.end(input);
    return run.catch((err: { code?: string; stderr?: string; message: string }) => {
      if (err.code === 'ENOENT')
        throw new Error('kubectl not found on PATH: it installs the CRDs (install kubectl 1.31–1.33)');
      throw new Error(`kubectl ${args[0]} failed: ${err.stderr?.trim() || err.message}`);
    });
  };
  await kubectl(
    ['apply', '--server-side', '--force-conflicts', `--field-manager=${fieldManager}`, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }),
  );
  type Crd = {
    metadata: { name: string };
    spec: { group: string; names: { plural: string }; versions: { name: string }[] };
  };
  const crds = docs as Crd[];
  await kubectl([
    'wait',
    '--for=condition=Established',
    `--timeout=${timeoutS}s`,
    ...crds.map((c) => `crd/${c.metadata.name}`),
  ]);
  // Established comes before the discovery and OpenAPI documents kubectl resolves and explains kinds
  // with: wait until it can, so that whoever runs kubectl next is not told the kind does not exist.
  const deadline = Date.now() + timeoutS * 1000;
  for (const { spec } of crds) {
    for (;;) {
      try {
        await kubectl([
          'explain',
          spec.names.plural,
          `--api-version=${spec.group}/${spec.versions[0]!.name}`,
        ]);
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await sleep(250);
      }
    }
  }
}
