// The emulator's HTTP side: fastify wiring of the interface routes (auth, call counting, faults,
// error shapes) and the admin surface. All decisions live in the modules it imports.
import { STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { registerAdmin } from './admin.ts';
import { authenticate } from './authn.ts';
import { type Busy, type EmulatorConfig, type Mode, type Profile, profiles } from './config.ts';
import { ApiError } from './errors.ts';
import { decideFault, garbles } from './faults.ts';
import { profileRules } from './profiles.ts';
import type { RawQuery } from './query.ts';
import { authRoutes } from './routes/auth.ts';
import { deploymentRoutes } from './routes/deployments.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { listenerRoutes } from './routes/listeners.ts';
import { logRoutes } from './routes/logs.ts';
import { hostedReadRoutes } from './routes/reads.ts';
import type { Route } from './routes/route.ts';
import { defaultSeed, type Seed } from './seed.ts';
import { clock, createState, purgeDeleted, type State } from './store.ts';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default cloud. */
  mode?: Mode;
  /** Default interface (the interface only); hosted adds the hosted service's known quirks (README.md, Profiles). */
  profile?: Profile;
  /** Default defaultSeed. */
  seed?: Seed;
  /** Revision lifecycle step; default 1000, 0 makes revisions terminal at once. */
  stepMs?: number;
  /** Default supersede. */
  busy?: Busy;
  /** Serve the interface under a prefix such as /api; the hosted profile's self-hosted default is /api-host. */
  pathPrefix?: string;
  /** Request logging to stdout (API keys redacted); default off. */
  log?: boolean;
}

export interface RunningEmulator {
  /** Base URL of the interface, including the path prefix. */
  url: string;
  /** Origin, where /_emulator lives. */
  adminUrl: string;
  close(): Promise<void>;
}

export const bodyLimit = 1024 * 1024;
const interfaceRoutes: Route[] = [
  ...deploymentRoutes,
  ...listenerRoutes,
  ...integrationRoutes,
  ...authRoutes,
  // Beyond the interface, but served in every profile: the hosted service's log endpoints.
  ...logRoutes,
];
const routesOf = (profile: Profile): Route[] =>
  profileRules[profile].readsById ? [...interfaceRoutes, ...hostedReadRoutes] : interfaceRoutes;
const uuidParams = ['deployment_id', 'listener_id', 'revision_id'];
const uuidPattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~/-]+$/.test(trimmed))
    throw new Error(`invalid path prefix ${prefix}`);
  return trimmed;
}

/** FastAPI's answer for a path parameter that is not a UUID. */
function assertUuidParams(params: Record<string, string>): void {
  const bad = uuidParams.filter((p) => params[p] !== undefined && !uuidPattern.test(params[p]));
  if (bad.length > 0) {
    throw new ApiError(
      422,
      bad.map((p) => ({
        type: 'uuid_parsing',
        loc: ['path', p],
        msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-]',
        input: params[p],
      })),
    );
  }
}

async function applyFaults(state: State, template: string, req: FastifyRequest, reply: FastifyReply) {
  if (!state.faults) return;
  const decision = decideFault(state.faults, template, Math.random);
  if (!decision) return;
  if (decision.latencyMs > 0) await sleep(decision.latencyMs);
  const action = decision.action;
  if (action?.kind === 'reset') {
    reply.hijack();
    req.raw.socket.destroy();
    return reply;
  }
  if (action?.kind === 'error') {
    if (action.retryAfterS !== null) reply.header('retry-after', String(action.retryAfterS));
    return reply
      .code(action.status)
      .send({ detail: `${STATUS_CODES[action.status] ?? 'Error'} (injected fault)` });
  }
}

function errorAnswer(err: FastifyError): { status: number; detail: unknown } {
  if (err instanceof ApiError) return { status: err.status, detail: err.detail };
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, detail: `Request body is larger than ${bodyLimit} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, detail: 'Content-Type must be application/json' };
  }
  const status = err.statusCode ?? 500;
  return status < 500 ? { status, detail: err.message } : { status: 500, detail: 'Internal Server Error' };
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const config: EmulatorConfig = {
    mode: opts.mode ?? 'cloud',
    profile: opts.profile ?? 'interface',
    stepMs: opts.stepMs ?? 1000,
    busy: opts.busy ?? 'supersede',
  };
  if (!Number.isInteger(config.stepMs) || config.stepMs < 0)
    throw new Error(`stepMs must be a whole number ≥ 0, got ${config.stepMs}`);
  if (!profiles.includes(config.profile)) throw new Error(`unknown profile ${config.profile}`);
  const prefix = normalizePrefix(
    opts.pathPrefix ?? profileRules[config.profile].defaultPathPrefix[config.mode],
  );
  const host = opts.host ?? '127.0.0.1';
  const state = createState(opts.seed ?? defaultSeed);

  const app = Fastify({
    logger: opts.log ? { redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] } : false,
    bodyLimit,
    forceCloseConnections: true,
  });
  // JSON bodies: an empty body is no body (some clients send the header on DELETE); bad JSON is FastAPI's 422.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      done(
        new ApiError(422, [
          { type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: {}, ctx: { error } },
        ]),
      );
    }
  });
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { status, detail } = errorAnswer(err);
    if (status >= 500) req.log.error({ err }, 'request failed');
    return reply.code(status).send({ detail });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'Not Found' }));

  registerAdmin(app, state, config);
  await app.register(
    async (api) => {
      for (const route of routesOf(config.profile)) {
        const template = `${route.method} ${route.path}`;
        api.route({
          method: route.method,
          url: route.path.replaceAll(/\{(\w+)\}/g, ':$1'),
          onRequest: async () => {
            state.calls.set(template, (state.calls.get(template) ?? 0) + 1);
          },
          onResponse: async (_req, reply) => {
            state.responses.set(reply.statusCode, (state.responses.get(reply.statusCode) ?? 0) + 1);
          },
          // After the body has arrived: a request the client fully sent is processed even if the
          // client goes away during injected latency, as a real server would.
          preHandler: (req, reply) => applyFaults(state, template, req, reply),
          handler: async (req, reply) => {
            const caller = authenticate(state.apiKeys, req.headers);
            const calls = state.tenantCalls.get(caller.tenantId) ?? new Map<string, number>();
            calls.set(template, (calls.get(template) ?? 0) + 1);
            state.tenantCalls.set(caller.tenantId, calls);
            const params = req.params as Record<string, string>;
            assertUuidParams(params);
            const now = clock(state);
            purgeDeleted(state, now, config);
            const answer = route.handle({
              state,
              config,
              caller,
              now,
              params,
              query: req.query as RawQuery,
              body: req.body,
            });
            const garbled = state.faults && garbles(state.faults, template, answer.status, Math.random);
            return reply.code(answer.status).send(garbled ? {} : answer.body);
          },
        });
      }
    },
    { prefix },
  );

  await app.listen({ host, port: opts.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { url: origin + prefix, adminUrl: origin, close: () => app.close() };
}
