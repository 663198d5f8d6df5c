// OAuthToken: the metadata of an existing OAuth token (interface §2.12, §4.1).
import { z } from 'zod';
import { kindNames } from './constants.ts';
import {
  cel,
  conditions,
  immutable,
  type KindDefinition,
  observedGeneration,
  printerColumns,
  type Resource,
  timestamp,
} from './fields.ts';
import { WorkspaceRef, workspaceRefImmutable } from './workspace.ts';

export const OAuthTokenSpec = z
  .strictObject({
    tokenId: z
      .string()
      .min(1)
      .meta({ description: 'Id of the OAuth token. Immutable.', ...cel(immutable('spec.tokenId')) }),
    providerAccountLabel: z
      .string()
      .optional()
      .describe('Account label to set on the token; unset leaves it as it is.'),
    isDefault: z.boolean().optional().describe('Make the token the default one; unset leaves it as it is.'),
    workspaceRef: WorkspaceRef.optional(),
  })
  .describe('The token and the metadata it should carry. Only the token owner can change it.');
export type OAuthTokenSpec = z.infer<typeof OAuthTokenSpec>;

export const OAuthTokenStatus = z
  .strictObject({
    observedGeneration,
    providerId: z.string().optional().describe('OAuth provider of the token.'),
    providerAccountLabel: z.string().optional().describe('Account label the service reports.'),
    scopes: z.array(z.string()).optional().describe('Scopes granted by the token.'),
    expiresAt: timestamp.optional().describe('When the token expires.'),
    isDefault: z.boolean().optional().describe('Whether the token is the default one.'),
    createdAt: timestamp.optional().describe('When the token was created.'),
    updatedAt: timestamp.optional().describe('When the token last changed.'),
    conditions,
  })
  .describe('Observed state of the token.');
export type OAuthTokenStatus = z.infer<typeof OAuthTokenStatus>;

export type OAuthTokenResource = Resource<'OAuthToken', OAuthTokenSpec, OAuthTokenStatus>;

export const oauthToken: KindDefinition = {
  ...kindNames.OAuthToken,
  shortNames: ['otok'],
  description: 'The metadata (account label, default flag) of an OAuth token.',
  spec: OAuthTokenSpec,
  status: OAuthTokenStatus,
  rules: [workspaceRefImmutable],
  printerColumns: printerColumns([
    { name: 'TOKEN', type: 'string', jsonPath: '.spec.tokenId', description: 'OAuth token id.' },
    {
      name: 'LABEL',
      type: 'string',
      jsonPath: '.status.providerAccountLabel',
      description: 'Account label.',
    },
    { name: 'DEFAULT', type: 'boolean', jsonPath: '.status.isDefault', description: 'Default token.' },
  ]),
};
