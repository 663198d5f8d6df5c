// The emulator's own surface under /_emulator (no API key; not part of the service interface):
// state dump with call counts (also per tenant), faults, API keys added and revoked, reset to the seed,
// call-counter reset, and moving the clock.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { EmulatorConfig } from './config.ts';
import { FaultConfigSchema } from './faults.ts';
import { SeedApiKey } from './seed.ts';
import { clock, createState, purgeDeleted, type State } from './store.ts';
import { parseBody } from './validate.ts';
import { deploymentView, revisionViews } from './views.ts';

const RevokeRequest = z.strictObject({ key: z.string().min(1) });
const ClockRequest = z.strictObject({ advance_ms: z.number().int().nonnegative() });

function stateDump(state: State, config: EmulatorConfig, now: number) {
  return {
    profile: config.profile,
    deployments: [...state.deployments.values()].map((d) => ({
      ...deploymentView(d, config, now),
      revisions: revisionViews(d, config, now),
    })),
    tracing_projects: state.tracingProjects,
    listeners: [...state.listeners.values()],
    connections: state.connections,
    tokens: [...state.tokens.values()],
    calls: Object.fromEntries(state.calls),
    calls_by_tenant: Object.fromEntries(
      [...state.tenantCalls].map(([tenant, calls]) => [tenant, Object.fromEntries(calls)]),
    ),
    responses: Object.fromEntries(state.responses),
    faults: state.faults,
    now: new Date(now).toISOString(),
  };
}

export function registerAdmin(app: FastifyInstance, state: State, config: EmulatorConfig): void {
  app.get('/_emulator/state', async () => {
    const now = clock(state);
    purgeDeleted(state, now, config);
    return stateDump(state, config, now);
  });
  app.post('/_emulator/faults', async (req) => {
    state.faults = parseBody(FaultConfigSchema, req.body);
    return state.faults;
  });
  app.delete('/_emulator/faults', async (_req, reply) => {
    state.faults = null;
    return reply.code(204).send();
  });
  app.post('/_emulator/reset', async (_req, reply) => {
    Object.assign(state, createState(state.seed));
    return reply.code(204).send();
  });
  // Key rotation: add a key, or revoke one (the answer never shows a key).
  app.post('/_emulator/api-keys', async (req, reply) => {
    const entry = parseBody(SeedApiKey, req.body);
    state.apiKeys = [...state.apiKeys.filter((k) => k.key !== entry.key), entry];
    return reply.code(204).send();
  });
  app.post('/_emulator/api-keys/revoke', async (req, reply) => {
    const { key } = parseBody(RevokeRequest, req.body);
    state.apiKeys = state.apiKeys.filter((k) => k.key !== key);
    return reply.code(204).send();
  });
  app.post('/_emulator/calls/reset', async (_req, reply) => {
    state.calls.clear();
    state.tenantCalls.clear();
    state.responses.clear();
    return reply.code(204).send();
  });
  app.post('/_emulator/clock', async (req) => {
    state.clockOffsetMs += parseBody(ClockRequest, req.body).advance_ms;
    return { now: new Date(clock(state)).toISOString() };
  });
}
