// `agent-deploy providers`: the OAuth providers of the organization (GET /v2/auth/providers).
import { Command } from 'commander';
import { cell, print } from '../output.ts';
import { addServiceOptions, type ServiceFlags, withService } from '../service-options.ts';

export function command(): Command {
  return addServiceOptions(new Command('providers').description('List the OAuth providers.')).action(
    async (flags: ServiceFlags) => {
      const providers = await withService(flags, (client) => client.listProviders());
      print(flags.output, providers, () => ({
        columns: ['PROVIDER', 'NAME', 'TYPE', 'PKCE', 'AUTH-METHOD', 'ID'],
        rows: providers.map((p) => [
          p.provider_id,
          p.name,
          cell(p.provider_type),
          p.uses_pkce ? cell(p.code_challenge_method ?? 'yes') : 'no',
          cell(p.token_endpoint_auth_method),
          p.id,
        ]),
      }));
    },
  );
}
