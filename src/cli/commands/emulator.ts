import { Command, InvalidArgumentError, Option } from 'commander';
import { profiles } from '../../emulator/config.ts';
import { loadSeed } from '../../emulator/seed.ts';
import { startEmulator } from '../../emulator/server.ts';

const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
};

// Runs the local emulator of the service until SIGINT/SIGTERM; prints its URL once listening.
export function command(): Command {
  return new Command('emulator')
    .description('run a local emulator of the service')
    .option('--port <port>', 'port to listen on (0: a free port)', wholeNumber, 8787)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .addOption(
      new Option('--mode <mode>', 'which sources are available')
        .choices(['cloud', 'self-hosted'])
        .default('cloud'),
    )
    .addOption(
      new Option('--profile <profile>', 'the interface only, or also the hosted service behaviours it omits')
        .choices(profiles)
        .default('interface'),
    )
    .option('--seed <file>', 'seed JSON file (default: the built-in seed)')
    .option('--step-ms <ms>', 'revision lifecycle step in ms (0: terminal at once)', wholeNumber, 1000)
    .addOption(
      new Option('--busy <policy>', 'a new revision while one is in flight')
        .choices(['supersede', 'reject'])
        .default('supersede'),
    )
    .option(
      '--path-prefix <prefix>',
      'serve the interface under this path, e.g. /api (hosted profile, self-hosted mode: /api-host)',
    )
    .option('--log', 'log requests (API keys redacted)', false)
    .action(async (opts) => {
      const emulator = await startEmulator({
        host: opts.host,
        port: opts.port,
        mode: opts.mode,
        profile: opts.profile,
        seed: opts.seed ? loadSeed(opts.seed) : undefined,
        stepMs: opts.stepMs,
        busy: opts.busy,
        pathPrefix: opts.pathPrefix,
        log: opts.log,
      });
      const profile = opts.profile === 'interface' ? '' : `, ${opts.profile} profile`;
      process.stdout.write(`emulator (${opts.mode}${profile}) listening on ${emulator.url}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await emulator.close();
    });
}
