// Vitest global setup of the integration project: one real kube-apiserver + etcd for the run.
// Teardown stops it; the process supervisor stops it too if the run is interrupted or killed.
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { type ControlPlane, startControlPlane } from '../../src/controlplane/controlplane.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    kubeServer: string;
  }
}

let controlPlane: ControlPlane | undefined;

export default async function setup(project: TestProject) {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'kubectl is needed by the integration tests (they drive the product with it): install kubectl 1.31–1.33, or run .ci/run, which builds it from the same Kubernetes release when it is missing.',
    );
  }
  controlPlane = await startControlPlane({ progress: (line) => console.log(line) });
  project.provide('kubeconfigPath', controlPlane.kubeconfigPath);
  project.provide('kubeServer', controlPlane.server);
  const stop = async () => {
    await controlPlane?.stop();
    controlPlane = undefined;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  }
  return stop;
}
