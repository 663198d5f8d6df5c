// Runs the operator as its own process (`agent-deploy operator`), as users run it: tests can read its
// logs, SIGKILL it, and start it again.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { kubeconfigPath } from './kube.ts';

const bin = fileURLToPath(new URL('../../bin/agent-deploy.js', import.meta.url));

export interface OperatorProcess {
  readonly pid: number;
  readonly logs: string[];
  /** Peak resident set size so far (VmHWM), in bytes. */
  peakRss(): number;
  /** The /metrics text; needs `healthPort`. */
  metrics(): Promise<string>;
  /** Resolves when a log line matches. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves with the exit code when the process ends (null when a signal ended it). */
  readonly exited: Promise<number | null>;
}

export interface OperatorOptions {
  serviceUrl: string;
  apiKey?: string;
  namespaces: string[];
  resync?: string;
  extraArgs?: string[];
  env?: Record<string, string>;
  /** Passed as --kubeconfig (default: the admin kubeconfig); null passes none, leaving it to KUBECONFIG in `env`. */
  kubeconfig?: string | null;
  /** Serve /metrics (and /healthz) on this port; default off. */
  healthPort?: number;
}

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

export function startOperator(options: OperatorOptions): OperatorProcess {
  const args = [
    bin,
    'operator',
    ...(options.kubeconfig === null ? [] : ['--kubeconfig', options.kubeconfig ?? kubeconfigPath()]),
    '--service-url',
    options.serviceUrl,
    '--resync',
    options.resync ?? '10m',
    '--health-port',
    String(options.healthPort ?? 0),
    '--log-level',
    'debug',
    ...options.namespaces.flatMap((n) => ['--namespace', n]),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, AGENT_DEPLOY_API_KEY: options.apiKey ?? 'dev-key', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const logs: string[] = [];
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) logs.push(line);
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = once(child, 'exit');
  return {
    pid: child.pid!,
    logs,
    peakRss() {
      const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (!kib) throw new Error(`no VmHWM for operator ${child.pid}`);
      return Number(kib) * 1024;
    },
    async metrics() {
      if (!options.healthPort) throw new Error('startOperator: metrics need healthPort');
      return (await fetch(`http://127.0.0.1:${options.healthPort}/metrics`)).text();
    },
    exited: exited.then(([code]) => code as number | null),
    waitForLog(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = logs.find((l) => pattern.test(l));
          if (hit) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `no log line matched ${pattern} within ${timeoutMs} ms; last lines:\n${logs.slice(-10).join('\n')}`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
      running.delete(child);
    },
  };
}
