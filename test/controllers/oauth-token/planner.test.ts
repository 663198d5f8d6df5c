import { describe, expect, it } from 'vitest';
import type { OAuthTokenResource } from '../../../src/api/oauth-token.ts';
import { planToken, type TokenView } from '../../../src/controllers/oauth-token/planner.ts';

const cr = (
  spec: Partial<OAuthTokenResource['spec']>,
  status?: OAuthTokenResource['status'],
): OAuthTokenResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'OAuthToken',
  metadata: { name: 't', namespace: 'n' },
  spec: { tokenId: 'tok-1', ...spec },
  ...(status ? { status } : {}),
});
const view = (r: OAuthTokenResource): TokenView => ({
  tokenId: 'tok-1',
  observed: r.status ?? {},
  providerKnown: true,
});
const seen = { providerId: 'github', providerAccountLabel: 'me', isDefault: false };

describe('planToken', () => {
  it('reads an unseen token with a PATCH of what the spec sets, even nothing', () => {
    const first = cr({});
    expect(planToken(first, undefined, view(first))).toMatchObject({
      action: 'patch',
      patch: {},
      fields: [],
    });
  });

  it('patches only what differs from what status saw, under the spec names', () => {
    const r = cr({ providerAccountLabel: 'you', isDefault: false }, seen);
    expect(planToken(r, undefined, view(r))).toMatchObject({
      action: 'patch',
      patch: { provider_account_label: 'you' },
      fields: ['providerAccountLabel'],
    });
  });

  it('does nothing when status shows what the spec asks', () => {
    const r = cr({ providerAccountLabel: 'me' }, seen);
    expect(planToken(r, undefined, view(r))).toMatchObject({ action: 'nothing' });
  });
});
