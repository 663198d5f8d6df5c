// The hosted service's log endpoints as the emulator serves them: the lifecycle step by step, paging by
// next_offset, the filters, the failure markers' failing steps, and secrets by name only.
import { describe, expect, it } from 'vitest';
import { failingBuildStep, failingRequirement, startCommand } from '../../src/emulator/logs.ts';
import type { LogEntry } from '../../src/service/wire.ts';
import { type Api, advance, createBody, useEmulator } from './support.ts';

const step = 60_000;
const emu = useEmulator({ stepMs: step });
const hosted = useEmulator({ profile: 'hosted', stepMs: 0 });

async function create(api: Api, name: string, image: string, over: Record<string, unknown> = {}) {
  const res = await api.post(
    '/v2/deployments',
    createBody(name, 'internal_docker', { source_revision_config: { image_uri: image }, ...over }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; latest_revision_id: string };
}

const buildPath = (d: { id: string; latest_revision_id: string }) =>
  `/v1/projects/${d.id}/revisions/${d.latest_revision_id}/build_logs`;
const deployPath = (d: { id: string; latest_revision_id: string }) =>
  `/v1/projects/${d.id}/revisions/${d.latest_revision_id}/deploy_logs`;

async function logs(api: Api, path: string, body: Record<string, unknown> = {}) {
  const res = await api.post(path, { order: 'asc', limit: 1000, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { logs: LogEntry[]; next_offset: number | null };
}
const messages = async (api: Api, path: string, body: Record<string, unknown> = {}) =>
  (await logs(api, path, body)).logs.map((l) => l.message);

describe('log endpoints', () => {
  it('follow the revision: no build lines before BUILDING, more as it builds, deploy lines after', async () => {
    const d = await create(emu.api, 'stepwise', 'agent:1');
    expect(await messages(emu.api, buildPath(d))).toEqual([]);
    await advance(emu.admin, 3 * step + step / 2); // halfway through BUILDING
    const half = await messages(emu.api, buildPath(d));
    expect(half.length).toBeGreaterThan(0);
    expect(half[0]).toBe(`Build started for revision ${d.latest_revision_id}`);
    expect(await messages(emu.api, deployPath(d))).toEqual([]);
    await advance(emu.admin, step / 2); // AWAITING_DEPLOY: the build is complete
    const full = await messages(emu.api, buildPath(d));
    expect(full.slice(0, half.length)).toEqual(half);
    expect(full.at(-1)).toBe('Build finished');
    await advance(emu.admin, 2 * step); // DEPLOYED
    expect((await messages(emu.api, deployPath(d))).at(-1)).toBe(
      `Revision ${d.latest_revision_id} is serving`,
    );
    // Deterministic: the same revision at the same moment reads the same.
    expect(await logs(emu.api, buildPath(d))).toEqual(await logs(emu.api, buildPath(d)));
    const times = (await logs(emu.api, buildPath(d))).logs.map((l) => l.timestamp);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('pages by next_offset in either order, and filters by level, query and time', async () => {
    const d = await create(hosted.api, 'paged', 'agent:fail-build');
    const all = (await logs(hosted.api, buildPath(d))).logs;
    expect(all.length).toBeGreaterThan(5);
    const pages: LogEntry[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await logs(hosted.api, buildPath(d), { limit: 4, offset });
      expect(page.logs.length).toBeLessThanOrEqual(4);
      pages.push(...page.logs);
      offset = page.next_offset;
    }
    expect(pages).toEqual(all);
    const tail = await logs(hosted.api, buildPath(d), { order: 'desc', limit: 2 });
    expect(tail.logs).toEqual(all.slice(-2).reverse());
    expect(tail.next_offset).toBe(2);

    const errors = await logs(hosted.api, buildPath(d), { level: 'ERROR' });
    expect(errors.logs.length).toBeGreaterThan(0);
    expect(errors.logs.every((l) => l.level === 'error')).toBe(true);
    expect(await messages(hosted.api, buildPath(d), { query: 'NO MATCHING' })).toEqual([
      `ERROR: No matching distribution found for ${failingRequirement}`,
    ]);
    const t = all[0]!.timestamp;
    expect((await logs(hosted.api, buildPath(d), { start_time: t + 1 })).logs).toEqual([]);
    expect((await logs(hosted.api, buildPath(d), { end_time: t })).logs).toEqual(all);
  });

  it('fail-build ends in a failing dependency install with an error line and an exit code', async () => {
    const d = await create(emu.api, 'badbuild', 'agent:fail-build');
    await advance(emu.admin, 5 * step);
    const lines = (await logs(emu.api, buildPath(d))).logs;
    const text = lines.map((l) => `${l.level} ${l.message}`);
    expect(text).toContain(`info Step 3/5 : RUN ${failingBuildStep}`);
    expect(text).toContain(`error ERROR: No matching distribution found for ${failingRequirement}`);
    expect(text.at(-1)).toBe('error Build failed: exit code 1');
    expect(await messages(emu.api, deployPath(d))).toEqual([]);
  });

  it('fail-deploy crash-loops the start', async () => {
    const d = await create(emu.api, 'crash', 'agent:fail-deploy');
    await advance(emu.admin, 7 * step);
    const lines = await messages(emu.api, deployPath(d));
    expect(lines.filter((l) => l === `Running: ${startCommand}`)).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('Back-off restarting failed container'))).toHaveLength(3);
    expect(lines.at(-1)).toBe('Deploy failed: the container is crash-looping (CrashLoopBackOff)');
    // The deployment's deploy logs hold its revisions' deploy logs.
    expect(await messages(emu.api, `/v1/projects/${d.id}/deploy_logs`)).toEqual(lines);
  });

  it('names secrets and never prints their values', async () => {
    const d = await create(hosted.api, 'secretive', 'agent:fail-deploy', {
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-canary-4242' }],
    });
    const all = [
      ...(await messages(hosted.api, buildPath(d))),
      ...(await messages(hosted.api, deployPath(d))),
    ].join('\n');
    expect(all).toContain('OPENAI_API_KEY');
    expect(all).not.toContain('sk-canary-4242');
  });

  it('answers 404 for an unknown revision, 422 for a bad body, and counts the calls', async () => {
    const d = await create(hosted.api, 'known', 'agent:1');
    const unknown = `/v1/projects/${d.id}/revisions/00000000-0000-4000-8000-000000000000/build_logs`;
    expect((await hosted.api.post(unknown, { order: 'asc', limit: 1 })).status).toBe(404);
    expect((await hosted.api.post(buildPath(d), { order: 'up', limit: 1 })).status).toBe(422);
    expect((await hosted.api.post(buildPath(d), { order: 'asc', limit: 1, extra: 1 })).status).toBe(422);
    expect((await hosted.api.post(buildPath(d), { order: 'asc', limit: 0 })).status).toBe(422);
    const state = (await hosted.admin.get('/_emulator/state')).body;
    expect(state.calls['POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs']).toBe(4);
  });
});
