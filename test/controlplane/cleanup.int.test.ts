// No server process outlives the process that started it: not after stop(), not after SIGTERM,
// not even after SIGKILL (the supervisor notices within a second). Nor does its directory, which holds etcd's
// data, the service-account signing key and the admin token (after SIGKILL, the janitor removes it).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

const node = process.execPath;
const script = `
import { startControlPlane } from ${JSON.stringify(new URL('../../src/controlplane/controlplane.ts', import.meta.url).pathname)};
const cp = await startControlPlane();
process.on('SIGTERM', async () => { await cp.stop(); process.exit(0); });
console.log(cp.dir);
setInterval(() => {}, 1000);
`;

function serversUnder(dir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `^\\S*/(etcd|kube-apiserver) .*${dir}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function startInChild() {
  const child = spawn(node, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
  });
  return { child, dir };
}

async function waitGone(dir: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = serversUnder(dir);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(200);
    left = serversUnder(dir);
  }
  return left;
}

describe('control plane process cleanup', () => {
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'leaves no etcd, kube-apiserver or directory behind after %s',
    async (signal) => {
      const { child, dir } = await startInChild();
      try {
        expect(serversUnder(dir)).toHaveLength(2);
        expect(existsSync(`${dir}/sa.key`)).toBe(true);
        child.kill(signal);
        expect(await waitGone(dir, 10_000)).toEqual([]);
        const deadline = Date.now() + 15_000;
        while (existsSync(dir) && Date.now() < deadline) await sleep(200);
        expect(existsSync(dir), `${dir} is removed`).toBe(false);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
