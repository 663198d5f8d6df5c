// Reads by id that the hosted API serves beyond the interface (its Terraform provider reads a deployment and
// a revision this way); registered only under the hosted profile, so the interface profile answers 404.
import { notFound } from '../errors.ts';
import { deploymentView, revisionView } from '../views.ts';
import { findDeployment } from './deployments.ts';
import { ok, type Route } from './route.ts';

export const hostedReadRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/deployments/{deployment_id}',
    handle: (ctx) => ok(deploymentView(findDeployment(ctx), ctx.config, ctx.now)),
  },
  {
    method: 'GET',
    path: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
    handle(ctx) {
      const id = ctx.params.revision_id!;
      const revision = findDeployment(ctx).revisions.find((r) => r.id === id);
      if (!revision) throw notFound(`revision ${id}`);
      return ok(revisionView(revision, ctx.config, ctx.now));
    },
  },
];
