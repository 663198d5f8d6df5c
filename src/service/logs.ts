// Build and deploy logs, the hosted service's extras beyond the interface: one page read entry by entry
// (an entry that breaks the contract is left out and reported, as in a list), and the walk over pages.
import { z } from 'zod';
import { contractIssues } from './errors.ts';
import { type RejectedItem, readItems } from './pages.ts';
import type { BodyReader } from './transport.ts';
import { LogEntry, type LogsPage, type LogsRequest } from './wire.ts';

/** Which log: a revision's build or deploy log, or a deployment's deploy log (all its revisions). */
export type LogTarget =
  | { deploymentId: string; revisionId: string; kind: 'build' | 'deploy' }
  | { deploymentId: string; revisionId?: undefined; kind: 'deploy' };

/** One page of logs: the entries that hold, and those left out. */
export interface ListedLogs extends LogsPage {
  rejected: RejectedItem[];
}

const Wrapper = z.looseObject({
  logs: z.array(z.unknown()),
  // Absent or null: nothing follows (tolerant: a service that leaves it out ends the walk).
  next_offset: z.number().int().nonnegative().nullish(),
});

export const logsReader: BodyReader<ListedLogs> = (json, contractError) => {
  const wrapper = Wrapper.safeParse(json);
  if (!wrapper.success) return { issues: contractIssues(wrapper.error) };
  const { kept, rejected } = readItems(wrapper.data.logs, LogEntry, 'logs', contractError);
  return {
    value: { ...wrapper.data, logs: kept, next_offset: wrapper.data.next_offset ?? null, rejected },
    violations: rejected.length,
  };
};

/** The endpoint template and path parameters of a log. */
export function logEndpoint(target: LogTarget): { template: string; params: Record<string, string> } {
  if (target.revisionId === undefined)
    return {
      template: '/v1/projects/{deployment_id}/deploy_logs',
      params: { deployment_id: target.deploymentId },
    };
  return {
    template: `/v1/projects/{deployment_id}/revisions/{revision_id}/${target.kind}_logs`,
    params: { deployment_id: target.deploymentId, revision_id: target.revisionId },
  };
}

/**
 * Walks pages from `offset` until one says nothing follows (next_offset null) or holds fewer than asked.
 * The next offset is the page's next_offset, but never less than the entries seen, so a service that
 * sends a stale one cannot make the walk loop. Without `onRejected`, an entry left out fails the walk.
 */
export async function* walkLogs(
  fetchPage: (offset: number) => Promise<ListedLogs>,
  query: Pick<LogsRequest, 'limit'>,
  onRejected?: (item: RejectedItem) => void,
  from = 0,
): AsyncGenerator<LogEntry, void, undefined> {
  let offset = from;
  for (;;) {
    const page = await fetchPage(offset);
    if (page.rejected.length > 0 && !onRejected) throw page.rejected[0]!.error;
    for (const item of page.rejected) onRejected?.(item);
    yield* page.logs;
    const sent = page.logs.length + page.rejected.length;
    if (page.next_offset === null || sent < query.limit || sent === 0) return;
    offset = Math.max(page.next_offset, offset + sent);
  }
}
