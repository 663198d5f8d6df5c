import { describe, expect, it } from 'vitest';
import {
  AgentConnection,
  Integration,
  OAuthProvider,
  OAuthToken,
  Repository,
} from '../../src/service/wire.ts';
import { client, ids, keys, useEmulator } from './support.ts';

const t = useEmulator({ stepMs: 0 });

describe('API key and tenant', () => {
  it('answers 401 without a key or with an unknown one, never echoing it', async () => {
    const none = await client(t.emu.url, null).get('/v2/deployments');
    expect(none.status).toBe(401);
    expect(typeof none.body.detail).toBe('string');
    const wrong = await client(t.emu.url, 'sk-secret-value-123').get('/v2/deployments');
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('sk-secret-value-123');
  });

  it('answers 403 when X-Tenant-Id is not the tenant of the key', async () => {
    const res = await client(t.emu.url, keys.dev, { 'x-tenant-id': ids.otherTenant }).get('/v2/deployments');
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('X-Tenant-Id');
    expect(
      (await client(t.emu.url, keys.dev, { 'x-tenant-id': ids.tenant }).get('/v2/deployments')).status,
    ).toBe(200);
  });
});

describe('OAuth providers and tokens', () => {
  it('lists the seed providers', async () => {
    const res = await t.api.get('/v2/auth/providers');
    expect(res.status).toBe(200);
    const providers = res.body.map((p: unknown) => OAuthProvider.parse(p));
    expect(providers.map((p: { id: string }) => p.id)).toEqual([ids.githubProvider, ids.googleProvider]);
  });

  it('lets the owner update token metadata', async () => {
    const res = await t.api.patch(`/v2/auth/tokens/${ids.githubToken}/metadata`, {
      provider_account_label: 'work',
      is_default: false,
    });
    expect(res.status).toBe(200);
    const token = OAuthToken.parse(res.body);
    expect(token).toMatchObject({ id: ids.githubToken, provider_account_label: 'work', is_default: false });
    expect(res.body).not.toHaveProperty('owner_user_id');
    expect(Date.parse(token.updated_at)).toBeGreaterThan(Date.parse('2025-01-01T00:00:00Z'));
    const state = (await t.admin.get('/_emulator/state')).body;
    expect(state.tokens.find((x: { id: string }) => x.id === ids.githubToken).provider_account_label).toBe(
      'work',
    );
  });

  it('refuses other users (403), unknown tokens (404) and bad bodies (422)', async () => {
    const other = await client(t.emu.url, keys.dev2).patch(`/v2/auth/tokens/${ids.githubToken}/metadata`, {
      provider_account_label: 'mine now',
    });
    expect(other.status).toBe(403);
    expect((await t.api.patch('/v2/auth/tokens/no-such-token/metadata', {})).status).toBe(404);
    const bad = await t.api.patch(`/v2/auth/tokens/${ids.githubToken}/metadata`, {
      is_default: 'yes',
      owner: 'x',
    });
    expect(bad.status).toBe(422);
    const state = (await t.admin.get('/_emulator/state')).body;
    expect(state.tokens.find((x: { id: string }) => x.id === ids.githubToken).provider_account_label).toBe(
      'dev@github',
    );
  });
});

describe('agent connections', () => {
  it('connects an agent to a token, mirroring it, created by the caller', async () => {
    const res = await client(t.emu.url, keys.dev2).post('/v2/auth/agents/agent-7/connections', {
      oauth_token_id: ids.googleToken,
    });
    expect(res.status).toBe(201);
    const c = AgentConnection.parse(res.body);
    expect(c).toMatchObject({
      agent_id: 'agent-7',
      oauth_token_id: ids.googleToken,
      provider_id: 'google',
      provider_account_label: 'dev@example.com',
      scopes: ['openid', 'email'],
      expires_at: '2030-01-01T00:00:00Z',
      created_by: ids.devUser2,
    });
    expect((await t.admin.get('/_emulator/state')).body.connections).toEqual([c]);
  });

  it('answers 404 for an unknown token or one of another tenant, 422 without a token id', async () => {
    expect((await t.api.post('/v2/auth/agents/a/connections', { oauth_token_id: 'nope' })).status).toBe(404);
    const other = client(t.emu.url, keys.otherTenant);
    expect(
      (await other.post('/v2/auth/agents/a/connections', { oauth_token_id: ids.githubToken })).status,
    ).toBe(404);
    expect((await t.api.post('/v2/auth/agents/a/connections', {})).status).toBe(422);
    expect((await t.admin.get('/_emulator/state')).body.connections).toEqual([]);
  });
});

describe('code-host integrations', () => {
  it('lists every integration, and the repos of each kind on its own path', async () => {
    const install = await t.api.get('/v1/integrations/codehost/install');
    expect(install.body.map((i: unknown) => Integration.parse(i))).toEqual([
      { id: ids.installedIntegration, installation_id: 1001, name: 'acme' },
      { id: ids.managedIntegration, installation_id: 2001, name: 'hosted-acme' },
    ]);
    const repos = await t.api.get(`/v1/integrations/codehost/${ids.installedIntegration}/repos`);
    expect(repos.body.map((r: unknown) => Repository.parse(r).url)).toEqual([
      'https://github.com/acme/support-agent',
      'https://github.com/acme/research-agent',
    ]);
    expect(repos.body[0]).toMatchObject({
      host_integration_id: ids.installedIntegration,
      default_branch: 'main',
    });
    const hosted = await t.api.get(`/v1/integrations/hosted/codehost/${ids.managedIntegration}/repos`);
    expect(hosted.body.map((r: { host_integration_id: string }) => r.host_integration_id)).toEqual([
      ids.managedIntegration,
      ids.managedIntegration,
    ]);
    expect((await t.api.get(`/v1/integrations/codehost/${ids.managedIntegration}/repos`)).status).toBe(404);
    expect(
      (await t.api.get(`/v1/integrations/hosted/codehost/${ids.installedIntegration}/repos`)).status,
    ).toBe(404);
    expect((await client(t.emu.url, null).get('/v1/integrations/codehost/install')).status).toBe(401);
  });
});
