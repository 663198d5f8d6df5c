import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

const node = new URL('../../../node_modules/.bin/node', import.meta.url).pathname;
const bin = new URL('../../../bin/agent-deploy.js', import.meta.url).pathname;

function start(args: string[]): { child: ChildProcess; url: Promise<string>; output: () => string } {
  const child = spawn(node, [bin, 'emulator', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`emulator exited (${code}): ${out}`)));
  });
  return { child, url, output: () => out };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('agent-deploy emulator', () => {
  it('prints its URL, answers with the default seed and stops on SIGTERM', async () => {
    const { child, url } = start(['--port', '0', '--path-prefix', '/api', '--mode', 'self-hosted']);
    const base = await url;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const res = await fetch(`${base}/v2/auth/providers`, { headers: { 'x-api-key': 'dev-key' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { provider_id: string }[]).map((p) => p.provider_id)).toEqual([
      'github',
      'google',
    ]);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(alive(child.pid!)).toBe(false);
  });

  it('keeps the API key out of its request log and stops on SIGINT', async () => {
    const { child, url, output } = start(['--port', '0', '--log', '--step-ms', '0']);
    const base = await url;
    await fetch(`${base}/v2/deployments`, { headers: { 'x-api-key': 'dev-key' } });
    await fetch(`${base}/v2/deployments`, { headers: { 'x-api-key': 'sk-very-secret' } });
    child.kill('SIGINT');
    await once(child, 'exit');
    expect(output()).toContain('/v2/deployments');
    expect(output()).not.toContain('dev-key');
    expect(output()).not.toContain('sk-very-secret');
    expect(alive(child.pid!)).toBe(false);
  });

  it('refuses bad options with one clear line', async () => {
    const child = spawn(node, [bin, 'emulator', '--mode', 'moon'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const [code] = await once(child, 'exit');
    expect(code).not.toBe(0);
    expect(err).toContain('moon');
  });
});
