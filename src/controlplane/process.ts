// Starts a server process that cannot outlive us: a small bash supervisor runs it, stops it on
// SIGTERM/SIGINT, and stops it within a second if our process dies (even by SIGKILL).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

// SIGTERM first; SIGKILL after 5 s, because kube-apiserver can hang in graceful shutdown once etcd is gone.
const supervisor = `
parent=$1; shift
"$@" & child=$!
stop() {
  kill -TERM $child 2>/dev/null
  for _ in $(seq 50); do kill -0 $child 2>/dev/null || break; sleep 0.1; done
  kill -KILL $child 2>/dev/null
  wait $child
}
trap 'stop; exit 143' TERM INT
while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 1 & wait $!; done
kill -0 $child 2>/dev/null && stop
wait $child
`;

// Waits for our process to end, then removes the paths: what stop() would have removed, when it never ran (a
// SIGKILL, an exit while starting). Twice: a server may still write for a few seconds after we are gone.
const janitor = `
parent=$1; shift
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
sleep 1; rm -rf -- "$@"
sleep 6; rm -rf -- "$@"
`;

/** Removes `paths` once this process has ended, however it ends. */
export function removeWhenGone(paths: string[]): void {
  // Its own session: the Ctrl-C that stops us does not reach it.
  spawn('bash', ['-c', janitor, 'janitor', String(process.pid), ...paths], {
    stdio: 'ignore',
    detached: true,
  }).unref();
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

export interface ServerProcess {
  readonly name: string;
  readonly logFile: string;
  /** Resolves with the exit code when the process has ended. */
  readonly exited: Promise<number | null>;
  hasExited(): boolean;
  logTail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL the server itself (not its supervisor): a crash, for chaos tests. */
  kill(): void;
}

export function startServer(name: string, bin: string, args: string[], logFile: string): ServerProcess {
  const log = openSync(logFile, 'a');
  const child = spawn('bash', ['-c', supervisor, 'supervise', String(process.pid), bin, ...args], {
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  running.add(child);
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      done = true;
      running.delete(child);
      resolve(code);
    });
  });
  return {
    name,
    logFile,
    exited,
    hasExited: () => done,
    logTail(lines = 30) {
      try {
        return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async stop(graceMs = 10_000) {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        this.kill();
        child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
    kill() {
      // The supervisor's child is the server; pkill by parent pid reaches it.
      if (!done && child.pid) spawn('pkill', ['-KILL', '-P', String(child.pid)], { stdio: 'ignore' });
    },
  };
}
