// Who is calling: X-Api-Key names a key of the seed or one added since (its tenant and user); X-Tenant-Id, when sent, must be that tenant.
// The key itself never appears in an answer.
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from './errors.ts';
import type { Caller } from './routes/route.ts';
import type { SeedApiKey } from './seed.ts';

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function authenticate(apiKeys: readonly SeedApiKey[], headers: IncomingHttpHeaders): Caller {
  const key = header(headers, 'x-api-key');
  if (!key) throw new ApiError(401, 'Missing API key (X-Api-Key header)');
  const entry = apiKeys.find((k) => k.key === key);
  if (!entry) throw new ApiError(401, 'Invalid API key');
  const tenant = header(headers, 'x-tenant-id');
  if (tenant !== undefined && tenant !== entry.tenant_id) {
    throw new ApiError(403, 'X-Tenant-Id does not match the tenant of the API key');
  }
  return { tenantId: entry.tenant_id, userId: entry.user_id, canManageListeners: entry.can_manage_listeners };
}
