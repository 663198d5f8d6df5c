// Vitest global setup of the integration project: one real kube-apiserver + etcd for the run.
// Teardown stops it; the process supervisor stops it too if the run is interrupted or killed.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type ControlPlane, startControlPlane } from '../../src/controlplane/controlplane.ts';
import { testCa } from './certs.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    kubeServer: string;
    /** ca.crt and ca.key of the CA whose client certificates the apiserver accepts (testCa(dir)). */
    clientCaDir: string;
  }
}

export default async function setup(project: TestProject) {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'kubectl is needed by the integration tests (they drive the product with it): install kubectl 1.31–1.33, or run .ci/run, which builds it from the same Kubernetes release when it is missing.',
    );
  }
  const clientCa = testCa();
  // Each integration project (one per emulator profile) has its own: held here, not in the module.
  let controlPlane: ControlPlane | undefined = await startControlPlane({
    progress: (line) => console.log(line),
    clientCaFile: join(clientCa.dir, 'ca.crt'),
  });
  project.provide('kubeconfigPath', controlPlane.kubeconfigPath);
  project.provide('clientCaDir', clientCa.dir);
  project.provide('kubeServer', controlPlane.server);
  const stop = async () => {
    await controlPlane?.stop();
    controlPlane = undefined;
    rmSync(clientCa.dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  }
  return stop;
}
