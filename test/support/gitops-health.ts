// The GitOps health checkers of tools/gitops-health (Flux's CEL status reader, Argo CD's Lua runtime, kstatus),
// built from the Go module proxy on first use and cached by version (.ci/run builds them beforehand).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const buildScript = fileURLToPath(new URL('../../tools/gitops-health/build.sh', import.meta.url));

/** Generous: the first build on a fresh machine downloads and compiles the Go modules. */
export const buildTimeoutMs = 900_000;

/** The directory holding flux-health, argocd-health and kstatus-check, built if missing. */
export function gitopsHealthBin(): string {
  const out = execFileSync('bash', [buildScript], {
    encoding: 'utf8',
    timeout: buildTimeoutMs,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1)!;
}

export interface Verdict {
  /** <kind>/<namespace>/<name> */
  ref: string;
  status: string;
  message: string;
}

/** Runs one checker; its output is one `<ref> <status> <message>` line per object. */
export function judge(bin: string, tool: string, args: string[], input?: string): Verdict[] {
  const out = execFileSync(`${bin}/${tool}`, args, {
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  });
  return out
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [ref = '', status = '', ...rest] = line.split(' ');
      return { ref, status, message: rest.join(' ') };
    });
}
