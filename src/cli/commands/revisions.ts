// `agent-deploy revisions DEPLOYMENT`: the revisions of one deployment, newest first by created_at
// (the interface leaves the service's order unspecified). Statuses the interface does not list are shown
// as sent; an entry that breaks the interface is left out, named on stderr, and the command exits 1.
import { Command, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import { describeLeftOut, type RejectedItem, type ServiceClient } from '../../service/client.ts';
import { type Revision, type RevisionStatus, revisionStatuses } from '../../service/wire.ts';
import { cell, print } from '../output.ts';
import { addServiceOptions, notFoundAs, type ServiceFlags, withService } from '../service-options.ts';

interface Flags extends ServiceFlags {
  status: RevisionStatus[];
}

const isId = (value: string) => z.uuid().safeParse(value).success;

export function command(): Command {
  return addServiceOptions(
    new Command('revisions')
      .description('List the revisions of a deployment, newest first.')
      .argument('<deployment>', 'deployment id or exact name')
      .addOption(
        new Option('--status <status>', 'only revisions in these statuses (repeat, or separate with commas)')
          .argParser((value: string, previous: RevisionStatus[] = []) => {
            const statuses = value.split(',').filter(Boolean);
            const unknown = statuses.filter((s) => !(revisionStatuses as readonly string[]).includes(s));
            if (unknown.length > 0)
              throw new InvalidArgumentError(
                `unknown revision status ${unknown.join(', ')} (one of ${revisionStatuses.join(', ')})`,
              );
            return [...previous, ...(statuses as RevisionStatus[])];
          })
          .default([]),
      ),
  ).action(async (deployment: string, flags: Flags) => {
    const rejected: RejectedItem[] = [];
    const revisions = await withService(flags, (client) =>
      listRevisions(client, deployment, flags.status, rejected),
    );
    print(flags.output, revisions, () => ({
      columns: ['ID', 'STATUS', 'SOURCE', 'CREATED', 'UPDATED', 'COMMIT'],
      rows: revisions.map((r) => [
        r.id,
        r.status,
        r.source,
        r.created_at,
        r.updated_at,
        cell(r.source_revision_config.repo_commit_sha),
      ]),
    }));
    if (rejected.length > 0) throw new Error(describeLeftOut(rejected, 'revision'));
  });
}

async function listRevisions(
  client: ServiceClient,
  deployment: string,
  status: RevisionStatus[],
  rejected: RejectedItem[],
): Promise<Revision[]> {
  let id = deployment;
  if (!isId(deployment)) {
    const found = await client.findDeploymentByName(deployment);
    if (!found) throw new Error(`deployment ${deployment} not found (no deployment has exactly that name)`);
    id = found.id;
  }
  const revisions = await client
    .listAllRevisions(id, status.length > 0 ? { status } : {}, { onRejected: (item) => rejected.push(item) })
    .catch(notFoundAs(`deployment ${deployment}`));
  return revisions.sort(
    (a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id.localeCompare(a.id),
  );
}
