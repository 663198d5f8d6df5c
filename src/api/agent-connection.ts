// AgentConnection: connects an agent to an OAuth token, once (interface §2.13, §4.5).
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

export const AgentConnectionSpec = z
  .strictObject({
    agentId: z
      .string()
      .min(1)
      .meta({ description: 'Id of the agent to connect. Immutable.', ...cel(immutable('spec.agentId')) }),
    oauthTokenId: z
      .string()
      .min(1)
      .meta({
        description: 'Id of the OAuth token to connect it to. Immutable.',
        ...cel(immutable('spec.oauthTokenId')),
      }),
    workspaceRef: WorkspaceRef.optional(),
  })
  .describe('The connection to make; it cannot be changed once made.');
export type AgentConnectionSpec = z.infer<typeof AgentConnectionSpec>;

export const AgentConnectionStatus = z
  .strictObject({
    observedGeneration,
    connectionId: z.string().optional().describe('Id of the service connection.'),
    providerId: z.string().optional().describe('OAuth provider of the token.'),
    providerAccountLabel: z.string().optional().describe('Account label of the token.'),
    scopes: z.array(z.string()).optional().describe('Scopes granted by the token.'),
    expiresAt: timestamp.optional().describe('When the token expires.'),
    createdBy: z.string().optional().describe('Who made the connection.'),
    createdAt: timestamp.optional().describe('When the connection was made.'),
    conditions,
  })
  .describe('Observed state of the service connection.');
export type AgentConnectionStatus = z.infer<typeof AgentConnectionStatus>;

export type AgentConnectionResource = Resource<'AgentConnection', AgentConnectionSpec, AgentConnectionStatus>;

export const agentConnection: KindDefinition = {
  ...kindNames.AgentConnection,
  shortNames: ['aconn'],
  description: 'A connection of an agent to an OAuth token.',
  spec: AgentConnectionSpec,
  status: AgentConnectionStatus,
  rules: [workspaceRefImmutable],
  printerColumns: printerColumns([
    { name: 'AGENT', type: 'string', jsonPath: '.spec.agentId', description: 'Agent id.' },
    { name: 'TOKEN', type: 'string', jsonPath: '.spec.oauthTokenId', description: 'OAuth token id.' },
    { name: 'PROVIDER', type: 'string', jsonPath: '.status.providerId', description: 'OAuth provider.' },
  ]),
};
