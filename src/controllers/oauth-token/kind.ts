// The OAuthToken kind for the shared reconciler: PATCH the token's metadata when the spec differs from
// what status last saw, and mirror the answer (token.ts says why status is the only observation).
import type { OAuthTokenResource } from '../../api/oauth-token.ts';
import type { UpdateTokenMetadataRequest } from '../../service/wire.ts';
import { outcomeConditions } from '../managed/conditions.ts';
import type { ManagedKind } from '../managed/kind.ts';
import { previousObserved } from '../managed/status.ts';
import { OAUTH_TOKENS } from '../resources.ts';
import { planToken, type TokenView } from './planner.ts';
import { type ObservedToken, readyMessage, tokenStatus, warnedOfProvider } from './token.ts';

export type TokenKind = ManagedKind<
  OAuthTokenResource,
  undefined,
  TokenView,
  TokenView,
  never,
  UpdateTokenMetadataRequest
>;

export function oauthTokenKind(resyncMs: number): TokenKind {
  return {
    ref: OAUTH_TOKENS,
    logKey: 'oauthToken',
    refusalMemoMs: resyncMs / 2,
    // The last PATCH's outcome per generation: our own status write, or a refusal, does not PATCH again.
    outcomeMemoMs: resyncMs / 2,
    forbidden: (cr) =>
      `only the owner of token ${cr.spec.tokenId} can change its metadata, and the operator's API key does not belong to them`,
    knownId: (cr) => cr.spec.tokenId,
    deletes: () => false,
    resolve: async () => ({ inputs: undefined }),
    observe: async (cr) => ({
      tokenId: cr.spec.tokenId,
      observed: previousObserved(cr.status) as ObservedToken,
      providerKnown: !warnedOfProvider(cr.status),
    }),
    observeNameTaken: async (_cr, observed) => observed,
    plan: planToken,
    create: () => Promise.reject(new Error('an OAuthToken is never created by the operator')),

    async update(target, patch, { service, signal }) {
      const token = await service.updateTokenMetadata(target.tokenId, patch, { signal });
      // DESIGN.md §2: a token's provider is checked when the token is shown; one list call per PATCH.
      const providers = await service.listProviders({ signal });
      return {
        tokenId: token.id,
        observed: tokenStatus(token),
        providerKnown: providers.some((p) => p.provider_id === token.provider_id),
      };
    },

    remove: async () => 'gone' as const,
    idOf: (t) => t.tokenId,
    describe: (t) => `token ${t.tokenId}`,

    async status(cr, { target, problem }) {
      const view = target ?? {
        tokenId: cr.spec.tokenId,
        observed: previousObserved(cr.status) as ObservedToken,
        providerKnown: true,
      };
      return {
        observed: view.observed,
        conditions: outcomeConditions(
          problem,
          readyMessage(cr.spec.tokenId, view.observed, view.providerKnown),
        ),
      };
    },
  };
}
