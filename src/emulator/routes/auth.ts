// OAuth providers, token metadata and agent connections (interface §4.1, §4.2, §4.5).
import { randomUUID } from 'node:crypto';
import { ConnectAgentRequest, UpdateTokenMetadataRequest } from '../../service/wire.ts';
import { ApiError, notFound } from '../errors.ts';
import { type StoredToken, tenantOfUser } from '../store.ts';
import { parseBody } from '../validate.ts';
import { created, ok, type Route } from './route.ts';

const tokenView = ({ owner_user_id: _owner, ...token }: StoredToken) => ({
  ...token,
  scopes: [...token.scopes],
});

export const authRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/auth/providers',
    handle({ state }) {
      return ok(state.seed.providers);
    },
  },
  {
    method: 'PATCH',
    path: '/v2/auth/tokens/{token_id}/metadata',
    handle({ state, caller, now, params, body }) {
      const req = parseBody(UpdateTokenMetadataRequest, body);
      const token = state.tokens.get(params.token_id!);
      if (!token) throw notFound(`token ${params.token_id}`);
      if (token.owner_user_id !== caller.userId)
        throw new ApiError(403, 'Only the owner of a token can update it');
      const label = req.provider_account_label ?? token.provider_account_label;
      const isDefault = req.is_default ?? token.is_default;
      if (label !== token.provider_account_label || isDefault !== token.is_default) {
        Object.assign(token, {
          provider_account_label: label,
          is_default: isDefault,
          updated_at: new Date(now).toISOString(),
        });
      }
      return ok(tokenView(token));
    },
  },
  {
    method: 'POST',
    path: '/v2/auth/agents/{agent_id}/connections',
    handle({ state, caller, now, params, body }) {
      const req = parseBody(ConnectAgentRequest, body);
      const token = state.tokens.get(req.oauth_token_id);
      // Tokens of users in other tenants are invisible.
      if (!token || tenantOfUser(state, token.owner_user_id) !== caller.tenantId) {
        throw notFound(`token ${req.oauth_token_id}`);
      }
      const connection = {
        id: randomUUID(),
        agent_id: params.agent_id!,
        oauth_token_id: token.id,
        provider_id: token.provider_id,
        provider_account_label: token.provider_account_label,
        scopes: [...token.scopes],
        expires_at: token.expires_at,
        created_by: caller.userId,
        created_at: new Date(now).toISOString(),
      };
      state.connections.push(connection);
      return created(connection);
    },
  },
];
