import { describe, expect, it } from 'vitest';
import type { OAuthTokenStatus } from '../../../src/api/oauth-token.ts';
import { outcomeConditions, toConditions } from '../../../src/controllers/managed/conditions.ts';
import {
  readyMessage,
  tokenPatch,
  tokenStatus,
  warnedOfProvider,
} from '../../../src/controllers/oauth-token/token.ts';

const seen: OAuthTokenStatus = { providerId: 'github', providerAccountLabel: 'me', isDefault: false };

describe('tokenPatch', () => {
  it('first sends what the spec sets, even nothing (an empty PATCH reads the token)', () => {
    expect(tokenPatch({ tokenId: 't', providerAccountLabel: 'me' }, undefined)).toEqual({
      provider_account_label: 'me',
    });
    expect(tokenPatch({ tokenId: 't' }, undefined)).toEqual({});
  });

  it('then sends only what differs from what status saw, and nothing when all agree', () => {
    expect(tokenPatch({ tokenId: 't', providerAccountLabel: 'me', isDefault: true }, seen)).toEqual({
      is_default: true,
    });
    expect(tokenPatch({ tokenId: 't', providerAccountLabel: 'you' }, seen)).toEqual({
      provider_account_label: 'you',
    });
    expect(tokenPatch({ tokenId: 't', providerAccountLabel: 'me', isDefault: false }, seen)).toBeUndefined();
    expect(tokenPatch({ tokenId: 't' }, seen)).toBeUndefined();
  });
});

describe('token status', () => {
  it('mirrors the token', () => {
    expect(
      tokenStatus({
        id: 't',
        provider_id: 'github',
        created_at: '2025-01-01T00:00:00Z',
        updated_at: '2025-01-02T00:00:00Z',
        provider_account_label: 'me',
        scopes: ['repo'],
        expires_at: '2030-01-01T00:00:00Z',
        is_default: true,
      }),
    ).toEqual({
      providerId: 'github',
      providerAccountLabel: 'me',
      scopes: ['repo'],
      expiresAt: '2030-01-01T00:00:00Z',
      isDefault: true,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-02T00:00:00Z',
    });
  });

  it('warns of an unknown provider in Ready, and remembers that warning', () => {
    expect(readyMessage('t', seen, true)).not.toContain('warning');
    const warned = readyMessage('t', seen, false);
    expect(warned).toContain('provider github is not among');
    const status: OAuthTokenStatus = {
      ...seen,
      conditions: toConditions(outcomeConditions(undefined, warned), undefined, 1, 'T'),
    };
    expect(warnedOfProvider(status)).toBe(true);
    expect(warnedOfProvider({ ...seen })).toBe(false);
  });
});
