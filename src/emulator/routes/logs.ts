// The hosted service's log endpoints (beyond the interface; its own command-line client reads them),
// served in every profile: build and deploy logs of one revision, and the deploy logs of a deployment.
import { LogsRequest } from '../../service/wire.ts';
import { notFound } from '../errors.ts';
import { deploymentLogs, type LogKind, logsPage, revisionLogs } from '../logs.ts';
import type { StoredRevision } from '../store.ts';
import { parseBody } from '../validate.ts';
import { findDeployment } from './deployments.ts';
import { ok, type RequestContext, type Route } from './route.ts';

function findRevision(ctx: RequestContext): StoredRevision {
  const id = ctx.params.revision_id!;
  const revision = findDeployment(ctx).revisions.find((r) => r.id === id);
  if (!revision) throw notFound(`revision ${id}`);
  return revision;
}

const revisionRoute = (kind: LogKind): Route => ({
  method: 'POST',
  path: `/v1/projects/{deployment_id}/revisions/{revision_id}/${kind}_logs`,
  handle(ctx) {
    const req = parseBody(LogsRequest, ctx.body);
    const revision = findRevision(ctx);
    const entries = revisionLogs(findDeployment(ctx), revision, kind, ctx.config.stepMs, ctx.now);
    return ok(logsPage(entries, req));
  },
});

export const logRoutes: Route[] = [
  revisionRoute('build'),
  revisionRoute('deploy'),
  {
    method: 'POST',
    path: '/v1/projects/{deployment_id}/deploy_logs',
    handle(ctx) {
      const req = parseBody(LogsRequest, ctx.body);
      return ok(logsPage(deploymentLogs(findDeployment(ctx), ctx.config.stepMs, ctx.now), req));
    },
  },
];
