// agent-deploy: one binary, one subcommand per job. Each subcommand lives in its own
// module under ./commands and is loaded only when run, so `agent-deploy operator`
// does not load the emulator's HTTP server and vice versa.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { runCli } from './run.ts';

interface SubcommandModule {
  /** Builds the subcommand; its own options and help live with it. */
  command(): Command;
}

const subcommands: Record<string, { summary: string; load: () => Promise<SubcommandModule> }> = {
  crds: {
    summary: 'print the CustomResourceDefinitions (or --check crds/ is current)',
    load: () => import('./commands/crds.ts'),
  },
  operator: {
    summary: 'run the operator (reconcile the custom resources against the service)',
    load: () => import('./commands/operator.ts'),
  },
  emulator: { summary: 'run a local emulator of the service', load: () => import('./commands/emulator.ts') },
  providers: { summary: 'list the OAuth providers', load: () => import('./commands/providers.ts') },
  integrations: {
    summary: 'list the code-host integrations',
    load: () => import('./commands/integrations.ts'),
  },
  repos: {
    summary: 'list code-host repositories (or print Deployment manifests for them)',
    load: () => import('./commands/repos.ts'),
  },
  deployments: { summary: 'list the service deployments', load: () => import('./commands/deployments.ts') },
  revisions: { summary: 'list the revisions of a deployment', load: () => import('./commands/revisions.ts') },
  logs: {
    summary: "print a deployment's build or deploy log (--follow for more as it comes)",
    load: () => import('./commands/logs.ts'),
  },
  diff: {
    summary: 'show what the operator would change for the Deployments in a file, changing nothing',
    load: () => import('./commands/diff.ts'),
  },
  sandbox: {
    summary: 'run a local cluster, the emulator and the operator (what `npm start` runs)',
    load: () => import('./commands/sandbox.ts'),
  },
};

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command('agent-deploy')
  .description(
    'Run agent deployments on the Deployment and Authorization Service from Kubernetes custom resources.',
  )
  .version(version, '-v, --version')
  .helpCommand(false);
for (const [name, { summary, load }] of Object.entries(subcommands)) {
  program
    .command(name)
    .description(summary)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_opts: unknown, cmd: Command) => {
      const sub = (await load()).command().name(`agent-deploy ${name}`);
      await sub.parseAsync(cmd.args, { from: 'user' });
    });
}

await runCli(() => program.parseAsync(process.argv));
