// What an OAuthToken resource asks of the service, and what status shows of the token. Pure functions.
//
// The interface has no GET of a token: the answer of PATCH /v2/auth/tokens/{id}/metadata is the only
// observation. So status holds what the last PATCH answered, the first reconcile PATCHes the fields the
// spec sets (none: an empty PATCH, which changes nothing and reads the token), and later reconciles PATCH
// only the fields whose spec value differs from what status last saw. A change made on the service by
// someone else cannot be seen, so it is corrected only when the spec changes.
import type { OAuthTokenResource, OAuthTokenStatus } from '../../api/oauth-token.ts';
import type { OAuthToken, UpdateTokenMetadataRequest } from '../../service/wire.ts';

export type ObservedToken = Omit<OAuthTokenStatus, 'observedGeneration' | 'conditions'>;

/** The PATCH body to send, or undefined when status already shows what the spec asks. */
export function tokenPatch(
  spec: OAuthTokenResource['spec'],
  status: OAuthTokenStatus | undefined,
): UpdateTokenMetadataRequest | undefined {
  const seen = status?.providerId !== undefined;
  const body: UpdateTokenMetadataRequest = {};
  if (
    spec.providerAccountLabel !== undefined &&
    (!seen || spec.providerAccountLabel !== status.providerAccountLabel)
  )
    body.provider_account_label = spec.providerAccountLabel;
  if (spec.isDefault !== undefined && (!seen || spec.isDefault !== status.isDefault))
    body.is_default = spec.isDefault;
  return !seen || Object.keys(body).length > 0 ? body : undefined;
}

export function tokenStatus(t: OAuthToken): ObservedToken {
  return {
    providerId: t.provider_id,
    providerAccountLabel: t.provider_account_label,
    scopes: t.scopes,
    expiresAt: t.expires_at,
    isDefault: t.is_default,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
  };
}

const unknownProvider = 'warning: provider';

/** Ready's message; it warns when the token's provider is not among the service's OAuth providers. */
export function readyMessage(tokenId: string, observed: ObservedToken, providerKnown: boolean): string {
  const label =
    observed.providerAccountLabel === undefined ? '' : ` with label "${observed.providerAccountLabel}"`;
  const base = `token ${tokenId} (provider ${observed.providerId ?? 'unknown'})${label}${observed.isDefault ? ', default' : ''}`;
  return providerKnown
    ? base
    : `${base}; ${unknownProvider} ${observed.providerId} is not among the service's OAuth providers`;
}

/**
 * Whether the last Ready message warned of an unknown provider: providers are checked with each PATCH,
 * and a reconcile that sends none keeps the verdict status already shows.
 */
export const warnedOfProvider = (status: OAuthTokenStatus | undefined): boolean =>
  status?.conditions?.find((c) => c.type === 'Ready')?.message.includes(unknownProvider) ?? false;
