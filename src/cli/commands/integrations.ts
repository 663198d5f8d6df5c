// `agent-deploy integrations`: the code-host integrations (GET /v1/integrations/codehost/install).
import { Command } from 'commander';
import { print } from '../output.ts';
import { addServiceOptions, type ServiceFlags, withService } from '../service-options.ts';

export function command(): Command {
  return addServiceOptions(
    new Command('integrations').description(
      'List the code-host integrations (their ids are what `repos --integration` and sourceConfig.integrationId take).',
    ),
  ).action(async (flags: ServiceFlags) => {
    const integrations = await withService(flags, (client) => client.listIntegrations());
    print(flags.output, integrations, () => ({
      columns: ['NAME', 'ID', 'INSTALLATION-ID'],
      rows: integrations.map((i) => [i.name, i.id, String(i.installation_id)]),
    }));
  });
}
