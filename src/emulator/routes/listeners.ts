// Listeners (interface §4.11, §4.12) plus the real service's POST, PATCH and DELETE.
// Changing listeners needs a plan that allows it (the seed key's can_manage_listeners).
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { CreateListenerRequest, PatchListenerRequest } from '../../service/wire.ts';
import { ApiError, badRequest, conflict, notFound } from '../errors.ts';
import { paginate, parsePaging } from '../query.ts';
import { listenerOf, type StoredListener } from '../store.ts';
import { parseBody } from '../validate.ts';
import { listenerView } from '../views.ts';
import { created, noContent, ok, type RequestContext, type Route } from './route.ts';

/** The version reported by listeners created through the API. */
export const listenerVersion = '0.1.0';

function assertPlan({ caller }: RequestContext): void {
  if (!caller.canManageListeners) throw new ApiError(403, 'Your plan does not allow managing listeners');
}

function find({ state, caller, params }: RequestContext): StoredListener {
  const id = params.listener_id!;
  const l = listenerOf(state, caller.tenantId, id);
  if (!l) throw notFound(`listener ${id}`);
  return l;
}

/** compute_type and compute_id may be sent on PATCH only unchanged; they are then dropped from the body. */
function withoutImmutables(l: StoredListener, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { compute_type, compute_id, ...rest } = body as Record<string, unknown>;
  if (compute_type !== undefined && compute_type !== l.compute_type)
    throw badRequest('compute_type cannot be changed');
  if (compute_id !== undefined && compute_id !== l.compute_id)
    throw badRequest('compute_id cannot be changed');
  return rest;
}

export const listenerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/listeners',
    handle({ state, caller, query }) {
      const paging = parsePaging(query);
      const items = [...state.listeners.values()]
        .filter((l) => l.tenant_id === caller.tenantId)
        .reverse()
        .map(listenerView);
      return ok(paginate(items, paging));
    },
  },
  {
    method: 'GET',
    path: '/v2/listeners/{listener_id}',
    handle(ctx) {
      return ok(listenerView(find(ctx)));
    },
  },
  {
    method: 'POST',
    path: '/v2/listeners',
    handle(ctx) {
      assertPlan(ctx);
      const { state, caller, now } = ctx;
      const req = parseBody(CreateListenerRequest, ctx.body);
      const taken = [...state.listeners.values()].some(
        (l) => l.tenant_id === caller.tenantId && l.compute_id === req.compute_id,
      );
      if (taken) throw conflict(`a listener with compute_id ${req.compute_id} already exists`);
      const at = new Date(now).toISOString();
      const l: StoredListener = {
        id: randomUUID(),
        tenant_id: caller.tenantId,
        compute_type: req.compute_type,
        compute_id: req.compute_id,
        compute_config: { k8s_namespaces: req.compute_config.k8s_namespaces ?? null },
        created_at: at,
        updated_at: at,
        version: listenerVersion,
      };
      state.listeners.set(l.id, l);
      return created(listenerView(l));
    },
  },
  {
    method: 'PATCH',
    path: '/v2/listeners/{listener_id}',
    handle(ctx) {
      assertPlan(ctx);
      const l = find(ctx);
      const req = parseBody(PatchListenerRequest, withoutImmutables(l, ctx.body));
      const computeConfig = { k8s_namespaces: req.compute_config.k8s_namespaces ?? null };
      if (!isDeepStrictEqual(computeConfig, l.compute_config)) {
        l.compute_config = computeConfig;
        l.updated_at = new Date(ctx.now).toISOString();
      }
      return ok(listenerView(l));
    },
  },
  {
    method: 'DELETE',
    path: '/v2/listeners/{listener_id}',
    handle(ctx) {
      assertPlan(ctx);
      const l = find(ctx);
      const users = [...ctx.state.deployments.values()].filter((d) => d.sourceConfig.listener_id === l.id);
      if (users.length > 0)
        throw conflict(`listener ${l.id} is used by deployment ${users.map((d) => d.name).join(', ')}`);
      ctx.state.listeners.delete(l.id);
      return noContent();
    },
  },
];
