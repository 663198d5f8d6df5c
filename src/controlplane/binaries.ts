// Locates kube-apiserver and etcd, building them from the Go module proxy on first use
// (src/controlplane/build.sh; cached by version under ~/.cache/agent-deploy/controlplane).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const kubernetesVersion =
  process.env.K8S_VERSION ?? readFileSync(new URL('./kubernetes-version', import.meta.url), 'utf8').trim();

export interface Binaries {
  kubeApiserver: string;
  etcd: string;
}

export function binariesDir(): string {
  const root = process.env.AGENT_DEPLOY_CONTROLPLANE_DIR;
  if (root) return join(root, 'bin');
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(cache, 'agent-deploy', 'controlplane', kubernetesVersion, 'bin');
}

/** Returns the binaries, building them first if they are not cached. Build progress goes to `progress`. */
export async function ensureBinaries(progress: (line: string) => void = () => {}): Promise<Binaries> {
  const dir = binariesDir();
  const bins = { kubeApiserver: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd') };
  if (existsSync(bins.kubeApiserver) && existsSync(bins.etcd)) return bins;

  await promisify(execFile)('go', ['version']).catch(() => {
    throw new Error(
      'Go is needed once, to build kube-apiserver and etcd from the Go module proxy: install Go >= 1.23 (https://go.dev/dl, or `apt-get install golang`), then run again.',
    );
  });
  const script = new URL('./build.sh', import.meta.url).pathname;
  await new Promise<void>((resolve, reject) => {
    const child = spawn('bash', [script], { env: { ...process.env, K8S_VERSION: kubernetesVersion } });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        if (line.startsWith('control plane')) progress(line);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`building the control plane failed (exit ${code}):\n${tail.join('\n')}`)),
    );
  });
  return bins;
}
