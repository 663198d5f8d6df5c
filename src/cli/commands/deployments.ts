// `agent-deploy deployments`: the service's deployments (GET /v2/deployments), every page, filtered. Values
// the interface does not list are shown as the service sent them; an entry that breaks the interface is
// left out of the output and named on stderr, and the command then exits 1.
import { Command, InvalidArgumentError, Option } from 'commander';
import { describeLeftOut, type RejectedItem, type ServiceClient } from '../../service/client.ts';
import {
  type Deployment,
  type DeploymentStatus,
  type DeploymentType,
  deploymentStatuses,
  deploymentTypes,
  type ListDeploymentsQuery,
} from '../../service/wire.ts';
import { cell, print } from '../output.ts';
import { addServiceOptions, type ServiceFlags, withService } from '../service-options.ts';

interface Flags extends ServiceFlags {
  nameContains?: string;
  status?: DeploymentStatus;
  deploymentType?: DeploymentType;
  imageVersion?: string;
  id: string[];
  limit?: number;
  showSecrets?: boolean;
}

/** The interface's largest page, and the most ids one `deployment_ids` filter takes. */
const pageSize = 100;

export function command(): Command {
  return addServiceOptions(
    new Command('deployments')
      .description('List the deployments of the service (every page), optionally filtered.')
      .option('--name-contains <text>', 'names containing this text (case-insensitive)')
      .addOption(new Option('--status <status>', 'deployment status').choices(deploymentStatuses))
      .addOption(new Option('--deployment-type <type>', 'deployment type').choices(deploymentTypes))
      .option('--image-version <version>', 'image version')
      .option(
        '--id <id>',
        'only these deployment ids (repeat, or separate with commas)',
        (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter(Boolean)],
        [],
      )
      .option('--limit <n>', 'print at most this many', (value: string) => {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1)
          throw new InvalidArgumentError(`--limit must be a whole number ≥ 1, not ${value}`);
        return n;
      })
      .option('--show-secrets', 'print secret values in -o json|yaml (hidden otherwise)'),
  ).action(async (flags: Flags) => {
    const rejected: RejectedItem[] = [];
    const deployments = await withService(flags, (client) => listDeployments(client, flags, rejected));
    print(
      flags.output,
      deployments,
      () => ({
        columns: ['NAME', 'ID', 'SOURCE', 'STATUS', 'LATEST-REVISION', 'ACTIVE-REVISION', 'UPDATED'],
        rows: deployments.map((d) => [
          d.name,
          d.id,
          d.source,
          d.status,
          cell(d.latest_revision_id),
          cell(d.active_revision_id),
          d.updated_at,
        ]),
      }),
      { showSecrets: flags.showSecrets },
    );
    if (rejected.length > 0) throw new Error(describeLeftOut(rejected, 'deployment'));
  });
}

async function listDeployments(
  client: ServiceClient,
  flags: Flags,
  rejected: RejectedItem[],
): Promise<Deployment[]> {
  const limit = flags.limit ?? Number.POSITIVE_INFINITY;
  const query: Omit<ListDeploymentsQuery, 'offset'> = { limit: Math.min(pageSize, limit) };
  if (flags.nameContains) query.name_contains = flags.nameContains;
  if (flags.status) query.status = flags.status;
  if (flags.deploymentType) query.deployment_type = flags.deploymentType;
  if (flags.imageVersion) query.image_version = flags.imageVersion;
  // More ids than one filter takes: one walk per batch of ids.
  const idBatches: (string[] | undefined)[] = [];
  for (let i = 0; i < flags.id.length; i += pageSize) idBatches.push(flags.id.slice(i, i + pageSize));
  if (idBatches.length === 0) idBatches.push(undefined);

  const out: Deployment[] = [];
  for (const ids of idBatches) {
    const batch = ids ? { ...query, deployment_ids: ids } : query;
    for await (const d of client.iterateDeployments(batch, { onRejected: (item) => rejected.push(item) })) {
      out.push(d);
      if (out.length >= limit) return out;
    }
  }
  return out;
}
