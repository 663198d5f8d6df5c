// Runs the real CLI as its own process, the way a person does, against an in-process emulator.
import { execFile } from 'node:child_process';
import { defaultSeedKeys } from '../../src/emulator/seed.ts';

const node = new URL('../../node_modules/.bin/node', import.meta.url).pathname;
const bin = new URL('../../bin/agent-deploy.js', import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Only the variables given reach the CLI: nothing leaks in from the environment running the tests.
 * `input`, when given, is written to its standard input.
 */
export function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      node,
      [bin, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The environment that points the CLI at `url` with the default seed's key. */
export const serviceEnv = (url: string, key: string = defaultSeedKeys.dev): Record<string, string> => ({
  AGENT_DEPLOY_SERVICE_URL: url,
  AGENT_DEPLOY_API_KEY: key,
});

/**
 * A failure as the CLI must report it: exit 1 (`agent-deploy diff`: 2), nothing on stdout, exactly one
 * line on stderr.
 */
export function oneLineError(run: CliRun, code = 1): string {
  if (run.code !== code || run.stdout !== '' || !/^agent-deploy: [^\n]+\n$/.test(run.stderr))
    throw new Error(`expected one error line and exit ${code}, got ${JSON.stringify(run)}`);
  return run.stderr.trim();
}
