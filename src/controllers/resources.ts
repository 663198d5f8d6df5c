// The REST resource of each kind of our API, derived from src/api's names: the CRDs and every client
// read the same plural and scope.
import { group, type KindName, kindNames, version } from '../api/constants.ts';
import type { ResourceRef } from '../runtime/kube-objects.ts';

const resourceOf = (kind: KindName): ResourceRef => ({
  group,
  version,
  plural: kindNames[kind].plural,
  namespaced: kindNames[kind].scope === 'Namespaced',
});

export const DEPLOYMENTS = resourceOf('Deployment');
export const LISTENERS = resourceOf('Listener');
export const AGENT_CONNECTIONS = resourceOf('AgentConnection');
export const OAUTH_TOKENS = resourceOf('OAuthToken');
export const WORKSPACES = resourceOf('Workspace');
export const CLUSTER_WORKSPACES = resourceOf('ClusterWorkspace');
