// The wire contract of the Deployment and Authorization Service (../shared/spec/service-interface.md),
// as zod schemas shared by the client, the emulator and the controllers.
//
// Responses are loose objects: the service may add fields, and we keep what we do not know. An enum
// value in a response that the interface does not list is kept as sent (tolerant reading): the hosted
// service has more values than the interface names, and one of them must not make a whole answer useless.
// Requests are strict objects with strict enums: the emulator rejects unknown fields and values, and the
// client never sends one.
// Field names are the service's snake_case; the CRDs' camelCase mapping lives in src/api.
import { z } from 'zod';

const timestamp = z.iso.datetime({ offset: true });
const uuid = z.uuid();

/** An enum value as a response carries it: one the interface lists, or a value it does not, as sent. */
export type Reported<Known extends string> = Known | (string & {});

/** The response schema of an enum: any string, typed so that code can still match the known values. */
const reported = <const Known extends readonly string[]>(_known: Known) =>
  z.string() as z.ZodType<Reported<Known[number]>>;

/** Whether a reported value is one of `known` (narrowing it to the known type). */
export const isKnown = <const Known extends readonly string[]>(
  known: Known,
  value: string,
): value is Known[number] => known.includes(value);

// §1, §2.1
export const sources = [
  'codehost',
  'external_docker',
  'internal_docker',
  'internal_source',
  'internal_template',
] as const;
export const Source = z.enum(sources);
export type Source = z.infer<typeof Source>;
const ReportedSource = reported(sources);

export const deploymentStatuses = [
  'AWAITING_DATABASE',
  'READY',
  'UNUSED',
  'AWAITING_DELETE',
  'UNKNOWN',
] as const;
export const DeploymentStatus = z.enum(deploymentStatuses);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;
/** The hosted service also answers AWAITING_FINAL_DELETE, and may add more. */
const ReportedDeploymentStatus = reported(deploymentStatuses);

// §3.2
export const revisionStatuses = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;
export const RevisionStatus = z.enum(revisionStatuses);
export type RevisionStatus = z.infer<typeof RevisionStatus>;
const ReportedRevisionStatus = reported(revisionStatuses);

/**
 * Revision states after which nothing more happens to that revision. Not INTERRUPTED nor UNKNOWN: the
 * hosted service may still move such a revision on; nor a state the interface does not list.
 */
export const terminalRevisionStatuses: ReadonlySet<string> = new Set<RevisionStatus>([
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
]);

/** The deployment types the interface lists. */
export const interfaceDeploymentTypes = ['dev_free', 'dev', 'prod'] as const;
/** What the operator may send: the hosted service also takes the scale-to-zero tiers. */
export const deploymentTypes = [...interfaceDeploymentTypes, 'dev_zero', 'dev_free_zero'] as const;
export const DeploymentType = z.enum(deploymentTypes);
export type DeploymentType = z.infer<typeof DeploymentType>;

/** Sources a PATCH may name as revision_source (§4.8). */
export const revisionSources = ['codehost', 'internal_docker', 'internal_source'] as const;
export const RevisionSource = z.enum(revisionSources);

// §2.6: Volume, VolumeMount and Container are Kubernetes-shaped and pass through as given.
const anyObject = z.record(z.string(), z.unknown());
export const VolumeMount = z.looseObject({
  name: z.string(),
  mountPath: z.string(),
  subPath: z.string().optional(),
  mountPropagation: z.string().optional(),
  subPathExpr: z.string().optional(),
  readOnly: z.boolean().optional(),
});
export const Volume = z.looseObject({
  name: z.string(),
  configMap: anyObject.optional(),
  secret: anyObject.optional(),
  emptyDir: anyObject.optional(),
  persistentVolumeClaim: anyObject.optional(),
  nfs: anyObject.optional(),
  projected: anyObject.optional(),
  downwardAPI: anyObject.optional(),
  csi: anyObject.optional(),
});
export const Container = z.looseObject({
  name: z.string(),
  image: z.string().optional(),
  imagePullPolicy: z.string().optional(),
  workingDir: z.string().optional(),
  restartPolicy: z.string().optional(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  env: z
    .array(z.looseObject({ name: z.string(), value: z.string().optional(), valueFrom: anyObject.optional() }))
    .optional(),
  envFrom: z.array(anyObject).optional(),
  resources: z.looseObject({ limits: anyObject.optional(), requests: anyObject.optional() }).optional(),
  volumeMounts: z.array(VolumeMount).optional(),
  securityContext: anyObject.optional(),
});

/** The numeric resource_spec fields (§2.6), in the interface's order. */
export const resourceSpecNumericFields = [
  'min_scale',
  'max_scale',
  'cpu',
  'cpu_limit',
  'memory_mb',
  'memory_limit_mb',
  'queue_min_scale',
  'queue_max_scale',
  'queue_cpu',
  'queue_cpu_limit',
  'queue_memory_mb',
  'queue_memory_limit_mb',
  'orchestrator_cpu',
  'orchestrator_cpu_limit',
  'orchestrator_memory_mb',
  'orchestrator_memory_limit_mb',
  'orchestrator_min_scale',
  'orchestrator_max_scale',
  'executor_cpu',
  'executor_cpu_limit',
  'executor_memory_mb',
  'executor_memory_limit_mb',
  'redis_cpu',
  'redis_cpu_limit',
  'redis_memory_mb',
  'redis_memory_limit_mb',
  'db_cpu',
  'db_cpu_limit',
  'db_memory_mb',
  'db_memory_limit_mb',
  'db_storage_gi',
  'db_max_connections',
] as const;

const resourceSpecShape = {
  ...(Object.fromEntries(resourceSpecNumericFields.map((f) => [f, z.number().nullish()])) as Record<
    (typeof resourceSpecNumericFields)[number],
    z.ZodOptional<z.ZodNullable<z.ZodNumber>>
  >),
  labels: z.record(z.string(), z.string()).nullish(),
  annotations: z.record(z.string(), z.string()).nullish(),
  service_account_name: z.string().nullish(),
  image_pull_secrets: z.array(z.looseObject({ name: z.string() })).nullish(),
  volumes: z.array(Volume).nullish(),
  volume_mounts: z.array(VolumeMount).nullish(),
  init_containers: z.array(Container).nullish(),
  sidecars: z.array(Container).nullish(),
};
export const ResourceSpec = z.looseObject(resourceSpecShape);
export const ResourceSpecInput = z.strictObject(resourceSpecShape);
export type ResourceSpec = z.infer<typeof ResourceSpec>;

// §2.2
const sourceConfigShape = {
  integration_id: uuid.nullish(),
  repo_url: z.string().nullish(),
  deployment_type: reported(deploymentTypes).nullish(),
  build_on_push: z.boolean().nullish(),
  custom_url: z.string().nullish(),
  resource_spec: ResourceSpec.nullish(),
  listener_id: uuid.nullish(),
  listener_config: z.looseObject({ k8s_namespace: z.string().nullish() }).nullish(),
  install_command: z.string().nullish(),
  build_command: z.string().nullish(),
};
export const SourceConfig = z.looseObject(sourceConfigShape);
export const SourceConfigInput = z.strictObject({
  ...sourceConfigShape,
  deployment_type: DeploymentType.nullish(),
  resource_spec: ResourceSpecInput.nullish(),
  listener_config: z.strictObject({ k8s_namespace: z.string().nullish() }).nullish(),
});
export type SourceConfig = z.infer<typeof SourceConfig>;
export type SourceConfigInput = z.infer<typeof SourceConfigInput>;

/** source_config fields the service refuses to change after creation (DESIGN.md §2). */
export const immutableSourceConfigFields = [
  'integration_id',
  'repo_url',
  'deployment_type',
  'listener_id',
  'listener_config',
] as const;

/** source_config fields the hosted service keeps once set: a PATCH cannot clear them. */
export const unclearableSourceConfigFields = ['custom_url', 'build_on_push'] as const;

// §2.3
const sourceRevisionConfigShape = {
  repo_ref: z.string().nullish(),
  graph_config_path: z.string().nullish(),
  image_uri: z.string().nullish(),
  source_tarball_path: z.string().nullish(),
};
export const SourceRevisionConfig = z.looseObject({
  ...sourceRevisionConfigShape,
  repo_commit_sha: z.string().nullish(),
});
/** In requests repo_commit_sha is absent (§2.1). */
export const SourceRevisionConfigInput = z.strictObject(sourceRevisionConfigShape);
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;
export type SourceRevisionConfigInput = z.infer<typeof SourceRevisionConfigInput>;

// §2.4, §2.5
export const Secret = z.looseObject({ name: z.string(), value: z.string() });
export const SecretInput = z.strictObject({ name: z.string().min(1), value: z.string() });
export type Secret = z.infer<typeof Secret>;
export const SecretReference = z.looseObject({
  name: z.string(),
  secret_name: z.string(),
  secret_key: z.string(),
});
export const SecretReferenceInput = z.strictObject({
  name: z.string().min(1),
  secret_name: z.string().min(1),
  secret_key: z.string().min(1),
});
export type SecretReference = z.infer<typeof SecretReference>;

// §2.1
export const Deployment = z.looseObject({
  id: uuid,
  tenant_id: uuid,
  name: z.string(),
  source: ReportedSource,
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfig,
  secrets: z.array(Secret),
  created_at: timestamp,
  updated_at: timestamp,
  status: ReportedDeploymentStatus,
  latest_revision_id: uuid.nullable(),
  active_revision_id: uuid.nullable(),
  secret_references: z.array(SecretReference).nullish(),
  image_version: z.string().nullish(),
});
export type Deployment = z.infer<typeof Deployment>;

// §4.6
export const CreateDeploymentRequest = z.strictObject({
  name: z.string().min(1),
  source: Source,
  source_config: SourceConfigInput,
  source_revision_config: SourceRevisionConfigInput,
  secrets: z.array(SecretInput),
  secret_references: z.array(SecretReferenceInput).nullish(),
});
export type CreateDeploymentRequest = z.infer<typeof CreateDeploymentRequest>;

// §4.8
export const PatchDeploymentRequest = z.strictObject({
  revision_source: RevisionSource.nullish(),
  source_config: SourceConfigInput.nullish(),
  source_revision_config: SourceRevisionConfigInput.nullish(),
  secrets: z.array(SecretInput).nullish(),
  secret_references: z.array(SecretReferenceInput).nullish(),
});
export type PatchDeploymentRequest = z.infer<typeof PatchDeploymentRequest>;

// §2.7
export const Revision = z.looseObject({
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  status: ReportedRevisionStatus,
  source: ReportedSource,
  source_revision_config: SourceRevisionConfig,
});
export type Revision = z.infer<typeof Revision>;

// §2.8
export const ListenerComputeConfig = z.looseObject({ k8s_namespaces: z.array(z.string()).nullish() });
export const Listener = z.looseObject({
  id: uuid,
  compute_type: z.string(),
  compute_id: z.string(),
  compute_config: ListenerComputeConfig,
  created_at: timestamp,
  updated_at: timestamp,
  version: z.string(),
});
export type Listener = z.infer<typeof Listener>;
/** Real-service extras: POST /v2/listeners and PATCH /v2/listeners/{id}. */
export const CreateListenerRequest = z.strictObject({
  compute_type: z.literal('k8s'),
  compute_id: z.string().min(1),
  compute_config: z.strictObject({ k8s_namespaces: z.array(z.string()).nullish() }),
});
export type CreateListenerRequest = z.infer<typeof CreateListenerRequest>;
export const PatchListenerRequest = z.strictObject({
  compute_config: z.strictObject({ k8s_namespaces: z.array(z.string()).nullish() }),
});
export type PatchListenerRequest = z.infer<typeof PatchListenerRequest>;

// §2.9, §2.10
export const Integration = z.looseObject({ id: uuid, installation_id: z.number().int(), name: z.string() });
export type Integration = z.infer<typeof Integration>;
export const Repository = z.looseObject({
  host_integration_id: uuid,
  id: z.number().int(),
  name: z.string(),
  owner: z.string(),
  url: z.string(),
  default_branch: z.string(),
});
export type Repository = z.infer<typeof Repository>;

// §2.11
export const OAuthProvider = z.looseObject({
  id: z.string(),
  organization_id: z.string(),
  provider_id: z.string(),
  name: z.string(),
  client_id: z.string(),
  auth_url: z.string(),
  token_url: z.string(),
  uses_pkce: z.boolean(),
  code_challenge_method: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  provider_type: z.string().nullish(),
  mcp_server_url: z.string().nullish(),
  token_endpoint_auth_method: z.string().default('client_secret_post'),
  is_dynamic_client: z.boolean().default(false),
});
export type OAuthProvider = z.infer<typeof OAuthProvider>;

// §2.12, §4.1
export const OAuthToken = z.looseObject({
  id: z.string(),
  provider_id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  provider_account_label: z.string(),
  scopes: z.array(z.string()),
  expires_at: timestamp,
  is_default: z.boolean(),
});
export type OAuthToken = z.infer<typeof OAuthToken>;
export const UpdateTokenMetadataRequest = z.strictObject({
  provider_account_label: z.string().optional(),
  is_default: z.boolean().optional(),
});
export type UpdateTokenMetadataRequest = z.infer<typeof UpdateTokenMetadataRequest>;

// §2.13, §4.5
export const AgentConnection = z.looseObject({
  id: z.string(),
  agent_id: z.string(),
  oauth_token_id: z.string(),
  provider_id: z.string(),
  provider_account_label: z.string(),
  scopes: z.array(z.string()),
  expires_at: timestamp,
  created_by: z.string(),
  created_at: timestamp,
});
export type AgentConnection = z.infer<typeof AgentConnection>;
export const ConnectAgentRequest = z.strictObject({ oauth_token_id: z.string().min(1) });
export type ConnectAgentRequest = z.infer<typeof ConnectAgentRequest>;

// §2.14
export function Page<T extends z.ZodType>(item: T) {
  return z.looseObject({ resources: z.array(item), offset: z.number().int().nonnegative() });
}
export interface Page<T> {
  resources: T[];
  offset: number;
}

// Error bodies (DESIGN.md §5): {"detail": "..."} or, on 422, {"detail": [{loc, msg, type}]}.
export const ValidationIssue = z.looseObject({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export const ErrorBody = z.looseObject({ detail: z.union([z.string(), z.array(ValidationIssue)]) });
export type ErrorBody = z.infer<typeof ErrorBody>;

// §4.10, §4.9 query parameters
export interface ListDeploymentsQuery {
  limit?: number;
  offset?: number;
  name_contains?: string;
  status?: DeploymentStatus;
  remote_reconciled?: boolean;
  tag_value_ids?: string[];
  image_version?: string;
  deployment_type?: DeploymentType;
  deployment_ids?: string[];
}
export interface ListRevisionsQuery {
  limit?: number;
  offset?: number;
  status?: RevisionStatus[];
  remote_reconciled?: boolean;
}
export interface PageQuery {
  limit?: number;
  offset?: number;
}

// Logs: the hosted service's extras beyond the interface (its own command-line client reads them):
// POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs, …/revisions/{revision_id}/deploy_logs
// and /v1/projects/{deployment_id}/deploy_logs.
export const logOrders = ['asc', 'desc'] as const;
/** The levels the emulator writes; the service may send others, kept as sent. */
export const logLevels = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof logLevels)[number];
/** The most entries one logs request may ask for. */
export const maxLogsLimit = 1000;
export const LogsRequest = z.strictObject({
  order: z.enum(logOrders),
  limit: z.number().int().min(1).max(maxLogsLimit),
  offset: z.number().int().nonnegative().optional(),
  level: z.string().min(1).optional(),
  query: z.string().min(1).optional(),
  /** Epoch milliseconds, inclusive. */
  start_time: z.number().int().nonnegative().optional(),
  /** Epoch milliseconds, inclusive. */
  end_time: z.number().int().nonnegative().optional(),
});
export type LogsRequest = z.infer<typeof LogsRequest>;
export const LogEntry = z.looseObject({
  message: z.string(),
  level: reported(logLevels),
  /** Epoch milliseconds. */
  timestamp: z.number(),
  id: z.string().nullish(),
});
export type LogEntry = z.infer<typeof LogEntry>;
/** `next_offset`: where the next page starts; null (or absent) once this page reached the end. */
export interface LogsPage<T = LogEntry> {
  logs: T[];
  next_offset: number | null;
}
