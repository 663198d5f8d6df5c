// Code-host integrations (interface §4.3, §4.4, §4.7). They come from the seed and are shared by all tenants;
// an installed integration answers on the plain path, a managed one only on the hosted path.
import { notFound } from '../errors.ts';
import type { Seed } from '../seed.ts';
import { ok, type RequestContext, type Route } from './route.ts';

function repos({ state, params }: RequestContext, managed: boolean) {
  const id = params.integration_id!;
  const integration = state.seed.integrations.find((i) => i.id === id && i.managed === managed);
  if (!integration) throw notFound(`${managed ? 'managed ' : ''}integration ${id}`);
  return ok(integration.repos.map((r) => ({ ...r, host_integration_id: integration.id })));
}

const installItem = ({ id, installation_id, name }: Seed['integrations'][number]) => ({
  id,
  installation_id,
  name,
});

export const integrationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/integrations/codehost/install',
    handle({ state }) {
      return ok(state.seed.integrations.map(installItem));
    },
  },
  {
    method: 'GET',
    path: '/v1/integrations/codehost/{integration_id}/repos',
    handle: (ctx) => repos(ctx, false),
  },
  {
    method: 'GET',
    path: '/v1/integrations/hosted/codehost/{integration_id}/repos',
    handle: (ctx) => repos(ctx, true),
  },
];
