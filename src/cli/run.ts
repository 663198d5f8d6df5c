// Turns a failure into one clear line on stderr and exit code 1 (or a CliFailure's own): a person
// using the CLI should read what went wrong, not a stack trace. AGENT_DEPLOY_DEBUG=1 shows the stack.

/**
 * A failure that exits with its own code rather than 1: `agent-deploy diff` fails with 2, as
 * `kubectl diff` does, because its 1 means "there are differences".
 */
export class CliFailure extends Error {
  readonly exitCode: number;
  /** The message is on stderr already (commander printed a usage error). */
  readonly printed: boolean;

  constructor(message: string, exitCode: number, options: { cause?: unknown; printed?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.exitCode = exitCode;
    this.printed = options.printed ?? false;
  }
}

export async function runCli(main: () => Promise<unknown>): Promise<void> {
  try {
    await main();
  } catch (err) {
    const failure = err instanceof CliFailure ? err : undefined;
    const message = err instanceof Error ? err.message : String(err);
    if (!failure?.printed) process.stderr.write(`agent-deploy: ${message}\n`);
    const shown = failure?.cause instanceof Error ? failure.cause : err;
    if (process.env.AGENT_DEPLOY_DEBUG && shown instanceof Error && shown.stack)
      process.stderr.write(`${shown.stack}\n`);
    process.exitCode = failure?.exitCode ?? 1;
  }
}
