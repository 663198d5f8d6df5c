// Every kind of the API, in the order the CRDs are printed.
import { agentConnection } from './agent-connection.ts';
import { deployment } from './deployment.ts';
import type { KindDefinition } from './fields.ts';
import { listener } from './listener.ts';
import { oauthToken } from './oauth-token.ts';
import { clusterWorkspace, workspace } from './workspace.ts';

export const kinds: readonly KindDefinition[] = [
  deployment,
  listener,
  agentConnection,
  oauthToken,
  workspace,
  clusterWorkspace,
];
