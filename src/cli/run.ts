// Turns a failure into one clear line on stderr and exit code 1: a person using the CLI
// should read what went wrong, not a stack trace. AGENT_DEPLOY_DEBUG=1 shows the stack.
export async function runCli(main: () => Promise<unknown>): Promise<void> {
  try {
    await main();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`agent-deploy: ${message}\n`);
    if (process.env.AGENT_DEPLOY_DEBUG && err instanceof Error && err.stack)
      process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  }
}
