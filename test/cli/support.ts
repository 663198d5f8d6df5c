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

/** Only the variables given reach the CLI: nothing leaks in from the environment running the tests. */
export function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      node,
      [bin, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The environment that points the CLI at `url` with the default seed's key. */
export const serviceEnv = (url: string, key: string = defaultSeedKeys.dev): Record<string, string> => ({
  AGENT_DEPLOY_SERVICE_URL: url,
  AGENT_DEPLOY_API_KEY: key,
});

/** A failure as the CLI must report it: exit 1, nothing on stdout, exactly one line on stderr. */
export function oneLineError(run: CliRun): string {
  if (run.code !== 1 || run.stdout !== '' || !/^agent-deploy: [^\n]+\n$/.test(run.stderr))
    throw new Error(`expected one error line and exit 1, got ${JSON.stringify(run)}`);
  return run.stderr.trim();
}
