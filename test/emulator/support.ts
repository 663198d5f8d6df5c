// Talks to a real emulator over HTTP on 127.0.0.1, the way any client would.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { defaultSeedIds, defaultSeedKeys } from '../../src/emulator/seed.ts';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.ts';

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
  body: any;
}

export interface Api {
  get(path: string): Promise<Answer>;
  post(path: string, body?: unknown): Promise<Answer>;
  patch(path: string, body?: unknown): Promise<Answer>;
  delete(path: string): Promise<Answer>;
  /** Any request, with a raw body string and headers of your choice. */
  raw(
    method: string,
    path: string,
    init?: { body?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export function client(
  baseUrl: string,
  key: string | null = defaultSeedKeys.dev,
  extra: Record<string, string> = {},
): Api {
  const auth: Record<string, string> = key === null ? {} : { 'x-api-key': key };
  const raw: Api['raw'] = async (method, path, init = {}) =>
    answer(
      await fetch(baseUrl + path, {
        method,
        body: init.body,
        headers: { ...auth, ...extra, ...init.headers },
      }),
    );
  const json = (method: string) => (path: string, body?: unknown) =>
    raw(
      method,
      path,
      body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
    );
  return { get: json('GET'), post: json('POST'), patch: json('PATCH'), delete: json('DELETE'), raw };
}

/**
 * One deployment by id, through the interface's own batched read (it has no GET by id):
 * 200 with the deployment, or 404 when the list does not hold it.
 */
export async function getDeployment(api: Api, id: string): Promise<Answer> {
  const res = await api.get(`/v2/deployments?deployment_ids=${id}`);
  if (res.status !== 200) return res;
  const found = res.body.resources[0];
  return found ? { ...res, body: found } : { ...res, status: 404, body: { detail: 'Not Found' } };
}

/** Starts one emulator for the file, back to the seed (and no faults) before each test. */
export function useEmulator(opts: EmulatorOptions = {}) {
  const ctx = {} as { emu: RunningEmulator; api: Api; admin: Api };
  beforeAll(async () => {
    ctx.emu = await startEmulator({ port: 0, ...opts });
    ctx.api = client(ctx.emu.url);
    ctx.admin = client(ctx.emu.adminUrl, null);
  });
  beforeEach(async () => {
    await ctx.admin.post('/_emulator/reset');
  });
  afterAll(async () => {
    await ctx.emu?.close();
  });
  return ctx;
}

export const ids = defaultSeedIds;
export const keys = defaultSeedKeys;

export const installedRepo = 'https://github.com/acme/support-agent';
export const managedRepo = 'https://github.com/hosted-acme/chat-agent';

/** A valid create body per source; `over` replaces top-level fields. */
export function createBody(name: string, source = 'internal_docker', over: Record<string, unknown> = {}) {
  const bySource: Record<string, { source_config: object; source_revision_config: object }> = {
    codehost: {
      source_config: {
        integration_id: ids.installedIntegration,
        repo_url: installedRepo,
        deployment_type: 'dev',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    },
    internal_docker: {
      source_config: { deployment_type: 'dev' },
      source_revision_config: { image_uri: 'registry/app:1' },
    },
    external_docker: {
      source_config: { deployment_type: 'dev' },
      source_revision_config: { image_uri: 'registry/app:1' },
    },
    internal_source: {
      source_config: {},
      source_revision_config: { source_tarball_path: 'uploads/app.tgz' },
    },
    internal_template: {
      source_config: {},
      source_revision_config: { graph_config_path: 'templates/react-agent' },
    },
  };
  return { name, source, ...bySource[source], secrets: [], ...over };
}

/** Moves the emulator's clock forward: lifecycle tests step through states without sleeping. */
export const advance = (admin: Api, ms: number) => admin.post('/_emulator/clock', { advance_ms: ms });

export async function revisions(api: Api, deploymentId: string) {
  const page = await api.get(`/v2/deployments/${deploymentId}/revisions?limit=100`);
  return page.body.resources as {
    id: string;
    status: string;
    source: string;
    source_revision_config: Record<string, unknown>;
  }[];
}
