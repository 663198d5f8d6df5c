// The data the emulator starts from (and returns to on reset): API keys, integrations, listeners,
// OAuth providers and tokens, pre-existing tracing projects and tag assignments. JSON with wire field names.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Listener, OAuthProvider, OAuthToken, Repository } from '../service/wire.ts';

export const SeedApiKey = z.strictObject({
  key: z.string().min(1),
  tenant_id: z.uuid(),
  user_id: z.string().min(1),
  can_manage_listeners: z.boolean().default(true),
});

const SeedIntegration = z.strictObject({
  id: z.uuid(),
  installation_id: z.number().int(),
  name: z.string(),
  /** Managed integrations answer on /v1/integrations/hosted/codehost/{id}/repos (the install list shows them too). */
  managed: z.boolean().default(false),
  repos: z.array(z.strictObject({ ...Repository.shape, host_integration_id: z.uuid().optional() })),
});

const SeedTracingProject = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().min(1), tenant_id: z.uuid() }),
]);

export type SeedApiKey = z.infer<typeof SeedApiKey>;

export const SeedSchema = z
  .strictObject({
    api_keys: z.array(SeedApiKey).min(1),
    integrations: z.array(SeedIntegration).default([]),
    listeners: z.array(z.strictObject({ ...Listener.shape, tenant_id: z.uuid() })).default([]),
    providers: z.array(z.strictObject(OAuthProvider.shape)).default([]),
    tokens: z.array(z.strictObject({ ...OAuthToken.shape, owner_user_id: z.string().min(1) })).default([]),
    /** A bare name exists in every tenant of api_keys; {name, tenant_id} in that tenant only. */
    tracing_projects: z.array(SeedTracingProject).default([]),
    /** Deployment name → tag value ids a deployment of that name carries (for the tag_value_ids filter). */
    tags: z.record(z.string(), z.array(z.string())).default({}),
  })
  .superRefine((seed, ctx) => {
    const unique = (path: string, values: string[]) => {
      const seen = new Set<string>();
      for (const v of values) {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [path], message: `duplicate ${v}` });
        seen.add(v);
      }
    };
    unique(
      'api_keys',
      seed.api_keys.map((k) => k.key),
    );
    unique(
      'integrations',
      seed.integrations.map((i) => i.id),
    );
    unique(
      'listeners',
      seed.listeners.map((l) => l.id),
    );
    unique(
      'tokens',
      seed.tokens.map((t) => t.id),
    );
    for (const [i, integration] of seed.integrations.entries()) {
      for (const [j, repo] of integration.repos.entries()) {
        if (repo.host_integration_id !== undefined && repo.host_integration_id !== integration.id) {
          ctx.addIssue({
            code: 'custom',
            path: ['integrations', i, 'repos', j, 'host_integration_id'],
            message: 'must equal the integration id (or be left out)',
          });
        }
      }
    }
  });
export type Seed = z.output<typeof SeedSchema>;

/** Fixed ids of the default seed, for tests and examples that reference them. */
export const defaultSeedIds = {
  tenant: 'aaaaaaaa-0000-4000-8000-000000000001',
  otherTenant: 'aaaaaaaa-0000-4000-8000-000000000002',
  devUser: 'bbbbbbbb-0000-4000-8000-000000000001',
  devUser2: 'bbbbbbbb-0000-4000-8000-000000000002',
  otherUser: 'bbbbbbbb-0000-4000-8000-000000000003',
  basicUser: 'bbbbbbbb-0000-4000-8000-000000000004',
  installedIntegration: 'cccccccc-0000-4000-8000-000000000001',
  managedIntegration: 'cccccccc-0000-4000-8000-000000000002',
  listener: 'dddddddd-0000-4000-8000-000000000001',
  githubProvider: 'eeeeeeee-0000-4000-8000-000000000001',
  googleProvider: 'eeeeeeee-0000-4000-8000-000000000002',
  githubToken: 'ffffffff-0000-4000-8000-000000000001',
  googleToken: 'ffffffff-0000-4000-8000-000000000002',
} as const;

/** API keys of the default seed. */
export const defaultSeedKeys = {
  dev: 'dev-key',
  dev2: 'dev-key-2',
  otherTenant: 'other-tenant-key',
  basicPlan: 'basic-plan-key',
} as const;

const ids = defaultSeedIds;
const t0 = '2025-01-01T00:00:00Z';
const repo = (integration: string, id: number, owner: string, name: string) => ({
  host_integration_id: integration,
  id,
  name,
  owner,
  url: `https://github.com/${owner}/${name}`,
  default_branch: 'main',
});

export const defaultSeed: Seed = SeedSchema.parse({
  api_keys: [
    { key: defaultSeedKeys.dev, tenant_id: ids.tenant, user_id: ids.devUser },
    { key: defaultSeedKeys.dev2, tenant_id: ids.tenant, user_id: ids.devUser2 },
    { key: defaultSeedKeys.otherTenant, tenant_id: ids.otherTenant, user_id: ids.otherUser },
    {
      key: defaultSeedKeys.basicPlan,
      tenant_id: ids.tenant,
      user_id: ids.basicUser,
      can_manage_listeners: false,
    },
  ],
  integrations: [
    {
      id: ids.installedIntegration,
      installation_id: 1001,
      name: 'acme',
      managed: false,
      repos: [
        repo(ids.installedIntegration, 501, 'acme', 'support-agent'),
        repo(ids.installedIntegration, 502, 'acme', 'research-agent'),
      ],
    },
    {
      id: ids.managedIntegration,
      installation_id: 2001,
      name: 'hosted-acme',
      managed: true,
      repos: [
        repo(ids.managedIntegration, 601, 'hosted-acme', 'chat-agent'),
        repo(ids.managedIntegration, 602, 'hosted-acme', 'sql-agent'),
      ],
    },
  ],
  listeners: [
    {
      id: ids.listener,
      tenant_id: ids.tenant,
      compute_type: 'k8s',
      compute_id: 'dev-cluster',
      compute_config: { k8s_namespaces: ['default', 'agents'] },
      created_at: t0,
      updated_at: t0,
      version: '0.1.0',
    },
  ],
  providers: [
    {
      id: ids.githubProvider,
      organization_id: ids.tenant,
      provider_id: 'github',
      name: 'GitHub',
      client_id: 'github-client-id',
      auth_url: 'https://github.com/login/oauth/authorize',
      token_url: 'https://github.com/login/oauth/access_token',
      uses_pkce: false,
      code_challenge_method: null,
      created_at: t0,
      updated_at: t0,
      provider_type: 'oauth2',
      mcp_server_url: null,
      token_endpoint_auth_method: 'client_secret_post',
      is_dynamic_client: false,
    },
    {
      id: ids.googleProvider,
      organization_id: ids.tenant,
      provider_id: 'google',
      name: 'Google',
      client_id: 'google-client-id',
      auth_url: 'https://accounts.google.com/o/oauth2/v2/auth',
      token_url: 'https://oauth2.googleapis.com/token',
      uses_pkce: true,
      code_challenge_method: 'S256',
      created_at: t0,
      updated_at: t0,
      provider_type: 'oidc',
      mcp_server_url: null,
      token_endpoint_auth_method: 'client_secret_basic',
      is_dynamic_client: false,
    },
  ],
  tokens: [
    {
      id: ids.githubToken,
      provider_id: 'github',
      owner_user_id: ids.devUser,
      created_at: t0,
      updated_at: t0,
      provider_account_label: 'dev@github',
      scopes: ['repo', 'read:user'],
      expires_at: '2030-01-01T00:00:00Z',
      is_default: true,
    },
    {
      id: ids.googleToken,
      provider_id: 'google',
      owner_user_id: ids.devUser,
      created_at: t0,
      updated_at: t0,
      provider_account_label: 'dev@example.com',
      scopes: ['openid', 'email'],
      expires_at: '2030-01-01T00:00:00Z',
      is_default: true,
    },
  ],
  tracing_projects: [],
  tags: {},
});

/** Reads and validates a seed file; a bad file is one clear error naming the file and the fields. */
export function loadSeed(file: string): Seed {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`seed file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = SeedSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`seed file ${file} is invalid: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`);
  return parsed.data;
}
