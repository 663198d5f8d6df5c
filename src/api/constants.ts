// Names shared by the CRDs, the controllers and the CLI: one place, so they cannot drift apart.

export const group = 'deploy.agents.dev';
export const version = 'v1alpha1';
export const apiVersion = `${group}/${version}`;
/** `kubectl get agents` lists every kind of this API. */
export const category = 'agents';

export const kindNames = {
  Deployment: { kind: 'Deployment', plural: 'deployments', singular: 'deployment', scope: 'Namespaced' },
  Listener: { kind: 'Listener', plural: 'listeners', singular: 'listener', scope: 'Cluster' },
  AgentConnection: {
    kind: 'AgentConnection',
    plural: 'agentconnections',
    singular: 'agentconnection',
    scope: 'Namespaced',
  },
  OAuthToken: { kind: 'OAuthToken', plural: 'oauthtokens', singular: 'oauthtoken', scope: 'Namespaced' },
  Workspace: { kind: 'Workspace', plural: 'workspaces', singular: 'workspace', scope: 'Namespaced' },
  ClusterWorkspace: {
    kind: 'ClusterWorkspace',
    plural: 'clusterworkspaces',
    singular: 'clusterworkspace',
    scope: 'Cluster',
  },
} as const;
export type KindName = keyof typeof kindNames;

export const annotations = {
  /** "true": the operator observes nothing and changes nothing for this resource. */
  paused: `${group}/paused`,
  /** The service deployment id, written right after create: survives a lost status. */
  deploymentId: `${group}/deployment-id`,
  /** Set before a create call whose outcome is not yet recorded (crash safety). */
  createPending: `${group}/create-pending`,
  /** The service connection id of an AgentConnection, written right after create. */
  connectionId: `${group}/connection-id`,
} as const;

export const finalizer = `${group}/finalizer`;

/**
 * spec.managementPolicy of the kinds bound to a service object: Manage creates, changes (and on request
 * deletes) it; Observe only mirrors an existing one into status and never writes to the service.
 */
export const managementPolicies = ['Manage', 'Observe'] as const;
export type ManagementPolicy = (typeof managementPolicies)[number];

export const conditionTypes = ['Ready', 'Synced', 'Reconciling', 'Stalled'] as const;
export type ConditionType = (typeof conditionTypes)[number];

export const conditionStatuses = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof conditionStatuses)[number];

/** Ready=False reasons that are progress, not failure: nobody needs to act on them. */
export const progressReasons = [
  'Creating',
  'Queued',
  'AwaitingBuild',
  'Building',
  'AwaitingDeploy',
  'Deploying',
  'AwaitingDatabase',
] as const;

/**
 * Condition reasons (DESIGN.md §2): CamelCase, one per phase or failure. The CRDs keep `reason` a
 * free string, as metav1.Condition does, so a new reason never needs a CRD change.
 */
export const conditionReasons = [
  // Ready: the phase of the service deployment and its latest revision.
  'Ready',
  ...progressReasons,
  'CreateFailed',
  'BuildFailed',
  'DeployFailed',
  'Interrupted',
  'Unknown',
  'UnknownServiceStatus',
  'NotFound',
  // Synced: whether the service holds what the spec asks.
  'Synced',
  'ServiceError',
  'Unauthorized',
  'InvalidSpec',
  'SecretNotFound',
  'SecretForbidden',
  'ListenerNotReady',
  'RepositoryNotFound',
  'AlreadyExists',
  'Conflict',
  'Forbidden',
  'ReconcilePaused',
  // Synced True of a resource with spec.managementPolicy Observe: mirrored, never written.
  'Observing',
  'WorkspaceNotReady',
  // Workspace: whether the service accepts its key (also Unauthorized, Forbidden, SecretNotFound).
  'Unreachable',
  'InUse',
  // Reconciling / Stalled.
  'Progressing',
  'Idle',
] as const;
export type ConditionReason = (typeof conditionReasons)[number];
