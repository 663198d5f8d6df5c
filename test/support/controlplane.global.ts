// Vitest global setup of the integration project: one real kube-apiserver + etcd for the run.
// Teardown stops it; the process supervisor stops it too if the run is interrupted or killed.
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
