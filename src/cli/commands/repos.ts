// `agent-deploy repos`: the repositories of the code-host integrations (GET …/codehost/{id}/repos, or
// the hosted path with --managed), or with --manifest a Deployment manifest per repository, ready to
// paste into git.
import { Command } from 'commander';
import type { z } from 'zod';
import { apiVersion, kindNames } from '../../api/constants.ts';
import type { DeploymentSpec } from '../../api/deployment.ts';
import type { ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import type { Repository } from '../../service/wire.ts';
import { print, serialize } from '../output.ts';
import { addServiceOptions, notFoundAs, type ServiceFlags, withService } from '../service-options.ts';

interface Flags extends ServiceFlags {
  integration?: string;
  managed?: boolean;
  manifest?: boolean;
  repo?: string;
}

/** Where a manifest's graph configuration is looked for until the user says otherwise. */
const defaultGraphConfigPath = 'langgraph.json';

export function command(): Command {
  return addServiceOptions(
    new Command('repos')
      .description(
        'List the repositories of the code-host integrations, or print Deployment manifests for them.',
      )
      .option('--integration <id>', 'only this integration (default: every integration)')
      .option('--managed', 'managed (hosted) integrations: uses the hosted code-host path')
      .option('--repo <owner/name>', 'only this repository')
      .option('--manifest', 'print a Deployment manifest (codehost source) for each repository'),
  ).action(async (flags: Flags) => {
    let repos = await withService(flags, (client) => listRepos(client, flags));
    if (flags.repo) {
      repos = repos.filter((r) => `${r.owner}/${r.name}` === flags.repo);
      if (repos.length === 0) {
        throw new Error(
          `repository ${flags.repo} is in no ${flags.managed ? 'managed ' : ''}code-host integration` +
            (flags.integration ? ` ${flags.integration}` : ''),
        );
      }
    }
    if (flags.manifest) {
      const manifests = repos.map((r) => manifest(r, flags.managed ?? false));
      process.stdout.write(
        flags.output === 'json'
          ? serialize('json', manifests)
          : manifests.map((m) => serialize('yaml', m)).join('---\n'),
      );
      return;
    }
    print(flags.output, repos, () => ({
      columns: ['OWNER', 'NAME', 'DEFAULT-BRANCH', 'URL', 'INTEGRATION', 'ID'],
      rows: repos.map((r) => [r.owner, r.name, r.default_branch, r.url, r.host_integration_id, String(r.id)]),
    }));
  });
}

async function listRepos(client: ServiceClient, flags: Flags): Promise<Repository[]> {
  const reposOf = (id: string) => (flags.managed ? client.listHostedRepos(id) : client.listRepos(id));
  if (flags.integration) {
    const kind = flags.managed ? 'managed integration' : 'integration';
    return reposOf(flags.integration).catch(notFoundAs(`${kind} ${flags.integration}`));
  }
  const all: Repository[] = [];
  for (const integration of await client.listIntegrations()) {
    try {
      all.push(...(await reposOf(integration.id)));
    } catch (err) {
      // An installed integration has no hosted repositories, and the other way round.
      if (!(err instanceof ServiceError && err.isNotFound)) throw err;
    }
  }
  return all;
}

/** A Kubernetes object name from a repository name: lower case, dashes for anything else. */
function objectName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cleaned.slice(0, 63).replace(/-+$/, '') || 'deployment';
}

function manifest(repo: Repository, hosted: boolean) {
  // Defaults (deletionPolicy, adopt) are left to the schema: the manifest holds only what matters.
  const spec: z.input<typeof DeploymentSpec> = {
    source: 'codehost',
    repository: { owner: repo.owner, name: repo.name, ...(hosted ? { hosted: true } : {}) },
    sourceRevisionConfig: { graphConfigPath: defaultGraphConfigPath },
  };
  return { apiVersion, kind: kindNames.Deployment.kind, metadata: { name: objectName(repo.name) }, spec };
}
