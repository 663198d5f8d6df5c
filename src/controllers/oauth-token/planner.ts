// What the operator does for an OAuthToken resource. The interface has no GET of a token (token.ts), so
// what status last saw is the observation. A pure function.
import { camelCase } from '../../api/case.ts';
import type { OAuthTokenResource } from '../../api/oauth-token.ts';
import type { UpdateTokenMetadataRequest } from '../../service/wire.ts';
import type { Plan } from '../managed/plan.ts';
import { type ObservedToken, tokenPatch } from './token.ts';

/** The token as far as the operator knows it. */
export interface TokenView {
  tokenId: string;
  observed: ObservedToken;
  /** Whether the token's provider is among the service's OAuth providers. */
  providerKnown: boolean;
}

export type TokenPlan = Plan<never, UpdateTokenMetadataRequest, TokenView>;

export function planToken(cr: OAuthTokenResource, _inputs: unknown, seen: TokenView): TokenPlan {
  const patch = tokenPatch(cr.spec, cr.status);
  if (!patch) return { action: 'nothing', target: seen };
  return { action: 'patch', target: seen, patch, fields: Object.keys(patch).map(camelCase) };
}
