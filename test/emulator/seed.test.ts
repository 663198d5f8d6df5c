import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSeed, defaultSeedIds, defaultSeedKeys, loadSeed } from '../../src/emulator/seed.ts';
import { client, useEmulator } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'emulator-seed-'));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

const minimal = {
  api_keys: [{ key: 'k1', tenant_id: '11111111-0000-4000-8000-000000000001', user_id: 'u1' }],
  integrations: [
    {
      id: '22222222-0000-4000-8000-000000000001',
      installation_id: 7,
      name: 'org',
      repos: [{ id: 1, name: 'r', owner: 'org', url: 'https://example.com/org/r', default_branch: 'trunk' }],
    },
  ],
};

describe('default seed', () => {
  it('has the documented keys, tenants and records', () => {
    const byKey = Object.fromEntries(defaultSeed.api_keys.map((k) => [k.key, k]));
    expect(byKey[defaultSeedKeys.dev]).toMatchObject({
      tenant_id: defaultSeedIds.tenant,
      user_id: defaultSeedIds.devUser,
    });
    expect(byKey[defaultSeedKeys.dev2]).toMatchObject({
      tenant_id: defaultSeedIds.tenant,
      user_id: defaultSeedIds.devUser2,
    });
    expect(byKey[defaultSeedKeys.otherTenant]?.tenant_id).toBe(defaultSeedIds.otherTenant);
    expect(byKey[defaultSeedKeys.basicPlan]).toMatchObject({
      tenant_id: defaultSeedIds.tenant,
      can_manage_listeners: false,
    });
    expect(defaultSeed.integrations.map((i) => [i.managed, i.repos.length])).toEqual([
      [false, 2],
      [true, 2],
    ]);
    expect(defaultSeed.listeners).toHaveLength(1);
    expect(defaultSeed.providers).toHaveLength(2);
    expect(defaultSeed.tokens.every((t) => t.owner_user_id === defaultSeedIds.devUser)).toBe(true);
  });
});

describe('loadSeed', () => {
  it('reads a valid file and fills defaults', () => {
    const seed = loadSeed(file('ok.json', JSON.stringify(minimal)));
    expect(seed.api_keys[0]!.can_manage_listeners).toBe(true);
    expect(seed.integrations[0]!.managed).toBe(false);
    expect(seed.listeners).toEqual([]);
  });

  it('names the file and the field when invalid', () => {
    expect(() => loadSeed(file('bad.json', '{"api_keys": ['))).toThrow(/seed file .*bad\.json/);
    const wrong = {
      ...minimal,
      api_keys: [{ key: 'k1', tenant_id: 'not-a-uuid', user_id: 'u1', colour: 1 }],
    };
    expect(() => loadSeed(file('wrong.json', JSON.stringify(wrong)))).toThrow(
      /wrong\.json is invalid.*api_keys/,
    );
    const dup = { ...minimal, api_keys: [minimal.api_keys[0], minimal.api_keys[0]] };
    expect(() => loadSeed(file('dup.json', JSON.stringify(dup)))).toThrow(/duplicate k1/);
    expect(() => loadSeed(join(dir, 'missing.json'))).toThrow(/missing\.json/);
  });
});

describe('an emulator on a custom seed', () => {
  const t = useEmulator({ seed: loadSeed(file('custom.json', JSON.stringify(minimal))) });

  it('answers only the seed keys and serves its integrations', async () => {
    expect((await client(t.emu.url, 'dev-key').get('/v2/deployments')).status).toBe(401);
    const api = client(t.emu.url, 'k1');
    const repos = await api.get('/v1/integrations/codehost/22222222-0000-4000-8000-000000000001/repos');
    expect(repos.body).toEqual([
      {
        id: 1,
        name: 'r',
        owner: 'org',
        url: 'https://example.com/org/r',
        default_branch: 'trunk',
        host_integration_id: '22222222-0000-4000-8000-000000000001',
      },
    ]);
    expect((await api.get('/v2/auth/providers')).body).toEqual([]);
  });
});
