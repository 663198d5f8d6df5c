// Deployment: one service deployment (interface §2.1), declared the Kubernetes way.
import { z } from 'zod';
import {
  deploymentStatuses,
  deploymentTypes,
  resourceSpecNumericFields,
  revisionSources,
  revisionStatuses,
  sources,
} from '../service/wire.ts';
import { type CamelCase, camelCase } from './case.ts';
import { kindNames, managementPolicies } from './constants.ts';
import {
  cel,
  conditions,
  immutable,
  immutableDefaultingToName,
  immutableWhenSet,
  type KindDefinition,
  listMap,
  localObjectReference,
  objectName,
  observedGeneration,
  printerColumns,
  type Resource,
  timestamp,
} from './fields.ts';
import { Container, Volume, VolumeMount } from './pod-objects.ts';
import { WorkspaceRef, workspaceRefImmutable } from './workspace.ts';

type NumericField = (typeof resourceSpecNumericFields)[number];

const workloads: Record<string, string> = {
  queue: 'Queue workers',
  orchestrator: 'Orchestrator',
  executor: 'Executor',
  redis: 'Redis',
  db: 'Database',
};
const quantities: Record<string, string> = {
  min_scale: 'minimum number of replicas',
  max_scale: 'maximum number of replicas',
  cpu: 'CPU request, in cores',
  cpu_limit: 'CPU limit, in cores',
  memory_mb: 'memory request, in MB',
  memory_limit_mb: 'memory limit, in MB',
  storage_gi: 'storage size, in GiB',
  max_connections: 'maximum number of connections',
};

/** CPU may be fractional; replica counts, megabytes, gibibytes and connections are whole numbers. */
function resourceQuantity(field: NumericField) {
  const [prefix = '', ...rest] = field.split('_');
  const workload = workloads[prefix];
  const quantity = workload ? rest.join('_') : field;
  const base = quantity.startsWith('cpu') ? z.number() : z.int();
  return base
    .min(0)
    .optional()
    .describe(`${workload ?? 'Web workers'}: ${quantities[quantity]} (resource_spec.${field}).`);
}

const resourceQuantities = Object.fromEntries(
  resourceSpecNumericFields.map((f) => [camelCase(f), resourceQuantity(f)]),
) as { [F in NumericField as CamelCase<F>]: ReturnType<typeof resourceQuantity> };

const ResourceSpec = z
  .strictObject({
    ...resourceQuantities,
    labels: z
      .record(z.string(), z.string())
      .optional()
      .describe('Labels for the workloads the service runs.'),
    annotations: z
      .record(z.string(), z.string())
      .optional()
      .describe('Annotations for the workloads the service runs.'),
    serviceAccountName: z.string().optional().describe('Kubernetes ServiceAccount the workloads run as.'),
    imagePullSecrets: z
      .array(localObjectReference('A Secret holding registry credentials.'))
      .optional()
      .describe('Secrets used to pull the images of the workloads.'),
    volumes: z.array(Volume).optional().describe('Volumes of the workloads.'),
    volumeMounts: z.array(VolumeMount).optional().describe('Volume mounts of the main container.'),
    initContainers: z.array(Container).optional().describe('Init containers of the workloads.'),
    sidecars: z.array(Container).optional().describe('Sidecar containers of the workloads.'),
  })
  .describe('Resources and pod settings of the deployment (resource_spec); the service replaces it whole.');

const uuid = z.uuid();

const SourceConfig = z
  .strictObject({
    integrationId: uuid
      .optional()
      .describe(
        'Code-host integration id (codehost source). Immutable. Leave unset when spec.repository is used.',
      ),
    repoUrl: z
      .string()
      .optional()
      .describe('Repository URL (codehost source). Immutable. Leave unset when spec.repository is used.'),
    deploymentType: z
      .enum(deploymentTypes)
      .optional()
      .describe(`${deploymentTypes.join(', ')}. Immutable.`),
    buildOnPush: z.boolean().optional().describe('Build a new revision on every push to the branch.'),
    customUrl: z.string().optional().describe('Custom URL of the deployment.'),
    resourceSpec: ResourceSpec.optional(),
    listenerId: uuid
      .optional()
      .describe(
        'Id of the listener whose cluster runs the deployment. Immutable. Alternative: spec.listenerRef.',
      ),
    listenerConfig: z
      .strictObject({
        k8sNamespace: z
          .string()
          .max(63)
          .optional()
          .describe('Namespace of the listener cluster to deploy into.'),
      })
      .optional()
      .describe('Listener settings of the deployment. Immutable.'),
    installCommand: z.string().optional().describe('Command that installs dependencies.'),
    buildCommand: z.string().optional().describe('Command that builds the application.'),
  })
  .describe('Source-specific settings (source_config); changing them needs no new revision.');

const SourceRevisionConfig = z
  .strictObject({
    repoRef: z
      .string()
      .optional()
      .describe('Branch or ref to build (codehost). With spec.repository it defaults to the default branch.'),
    graphConfigPath: z.string().optional().describe('Path of the graph configuration file in the source.'),
    imageUri: z.string().optional().describe('Image to run (external_docker, internal_docker).'),
    sourceTarballPath: z
      .string()
      .optional()
      .describe('Path of the uploaded source tarball (internal_source).'),
  })
  .describe('Settings of each revision (source_revision_config); changing them builds a new revision.');

const SecretEntry = z
  .strictObject({
    name: z.string().min(1).describe('Name of the environment variable.'),
    value: z.string().optional().describe('Literal value, for values that are not sensitive.'),
    valueFrom: z
      .strictObject({
        secretKeyRef: z
          .strictObject({
            name: objectName.describe('Name of a Secret in the namespace of this resource.'),
            key: z.string().min(1).max(253).describe('Key within the Secret.'),
            optional: z
              .boolean()
              .optional()
              .describe('When true, a missing Secret or key leaves the variable out.'),
          })
          .describe('Reads the value from a key of a Kubernetes Secret.'),
      })
      .optional()
      .describe('Where the value comes from.'),
  })
  .meta({
    description: 'A secret of the deployment: a literal value or a reference to a Kubernetes Secret.',
    ...cel({
      rule: 'has(self.value) != has(self.valueFrom)',
      message: 'set exactly one of value or valueFrom',
    }),
  });

const rule = {
  secretReferences: {
    rule: "!has(self.secretReferences) || self.source == 'external_docker'",
    message: 'spec.secretReferences is allowed only when spec.source is external_docker',
    fieldPath: '.secretReferences',
  },
  listenerRef: {
    rule: '!has(self.listenerRef) || !has(self.sourceConfig) || !has(self.sourceConfig.listenerId)',
    message: 'set spec.listenerRef or spec.sourceConfig.listenerId, not both',
    fieldPath: '.listenerRef',
  },
  repositorySource: {
    rule: "!has(self.repository) || self.source == 'codehost'",
    message: 'spec.repository is allowed only when spec.source is codehost',
    fieldPath: '.repository',
  },
  repositoryFields: {
    rule:
      '!has(self.repository) || !has(self.sourceConfig) ||' +
      ' (!has(self.sourceConfig.integrationId) && !has(self.sourceConfig.repoUrl))',
    message: 'set spec.repository or spec.sourceConfig.integrationId/repoUrl, not both',
    fieldPath: '.repository',
  },
  repositoryBranch: {
    rule:
      '!has(self.repository) || !has(self.repository.branch) ||' +
      ' !has(self.sourceRevisionConfig) || !has(self.sourceRevisionConfig.repoRef)',
    message: 'set spec.repository.branch or spec.sourceRevisionConfig.repoRef, not both',
    fieldPath: '.repository.branch',
  },
};

export const DeploymentSpec = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Name of the service deployment (and of its tracing project). Defaults to metadata.name. Immutable.',
      ),
    source: z
      .enum(sources)
      .meta({ description: 'Where the deployment comes from. Immutable.', ...cel(immutable('spec.source')) }),
    sourceConfig: SourceConfig.optional(),
    sourceRevisionConfig: SourceRevisionConfig.optional(),
    listenerRef: localObjectReference(
      'A Listener resource whose status.listenerId is used as sourceConfig.listenerId.',
    ).optional(),
    repository: z
      .strictObject({
        owner: z.string().min(1).describe('Owner (account or organization) of the repository.'),
        name: z.string().min(1).describe('Name of the repository.'),
        hosted: z
          .boolean()
          .optional()
          .describe('The repository belongs to a managed code-host integration (default false).'),
        branch: z.string().optional().describe('Branch to build; defaults to the repository default branch.'),
      })
      .optional()
      .describe(
        'A code-host repository by owner and name (codehost source only): the operator resolves the ' +
          'integration id, repository URL and default branch.',
      ),
    secrets: z
      .array(SecretEntry)
      .optional()
      .meta({ description: 'Secrets of the deployment, by unique name.', ...listMap('name') }),
    secretsFrom: z
      .array(
        z
          .strictObject({
            secretRef: localObjectReference('A Secret in the namespace of this resource.'),
          })
          .describe('Every key of a Kubernetes Secret becomes a secret of the deployment.'),
      )
      .optional()
      .describe('Kubernetes Secrets whose keys all become secrets; entries of spec.secrets win.'),
    secretReferences: z
      .array(
        z
          .strictObject({
            name: z.string().min(1).describe('Name of the environment variable.'),
            secretName: z.string().min(1).describe('Name of the secret in the self-hosted cluster.'),
            secretKey: z.string().min(1).describe('Key within that secret.'),
          })
          .describe('A secret that the self-hosted cluster holds.'),
      )
      .optional()
      .meta({
        description: 'Secrets read from the self-hosted cluster (external_docker source only).',
        ...listMap('name'),
      }),
    imageVersion: z.string().optional().describe('Image version of the deployment.'),
    revisionSource: z
      .enum(revisionSources)
      .optional()
      .describe('Source of new revisions when it differs from spec.source.'),
    deletionPolicy: z
      .enum(['Orphan', 'Delete'])
      .default('Orphan')
      .describe(
        'On deletion of this resource: Orphan keeps the service deployment, Delete deletes it ' +
          '(managementPolicy Observe never deletes).',
      ),
    adopt: z
      .boolean()
      .default(false)
      .describe('Take over an existing service deployment of the same name instead of failing.'),
    managementPolicy: z
      .enum(managementPolicies)
      .default('Manage')
      .describe(
        'Manage: create the service deployment, keep it as the spec says, delete it as deletionPolicy says. ' +
          'Observe: only mirror an existing service deployment (by the id status records, else by spec.name) into ' +
          'status; nothing is ever created, changed or deleted on the service, and Secrets are not read. ' +
          'Switching from Observe to Manage takes the deployment over without spec.adopt.',
      ),
    workspaceRef: WorkspaceRef.optional(),
  })
  .meta({
    description: 'Desired state of the service deployment.',
    ...cel(
      rule.secretReferences,
      rule.listenerRef,
      rule.repositorySource,
      rule.repositoryFields,
      rule.repositoryBranch,
      immutableWhenSet('sourceConfig.integrationId', 'spec.sourceConfig.integrationId'),
      immutableWhenSet('sourceConfig.repoUrl', 'spec.sourceConfig.repoUrl'),
      immutableWhenSet('sourceConfig.deploymentType', 'spec.sourceConfig.deploymentType'),
      immutableWhenSet('sourceConfig.listenerId', 'spec.sourceConfig.listenerId'),
      immutableWhenSet('sourceConfig.listenerConfig', 'spec.sourceConfig.listenerConfig'),
    ),
  });
export type DeploymentSpec = z.infer<typeof DeploymentSpec>;

/** How many revisions status.revisions keeps. */
export const statusRevisionsLimit = 5;

const RevisionSummary = z
  .strictObject({
    id: z.string().describe('Revision id.'),
    // A free string: a state the service adds must not make the status write fail.
    status: z
      .string()
      .describe(
        `Build and deploy state of the revision as the service reports it (${revisionStatuses.join(', ')}, or a newer one).`,
      ),
    createdAt: timestamp.optional().describe('When the revision was created.'),
    updatedAt: timestamp.optional().describe('When the revision last changed.'),
    repoCommitSha: z.string().optional().describe('Commit the revision was built from (codehost).'),
  })
  .describe('A revision of the service deployment.');

export const DeploymentStatus = z
  .strictObject({
    observedGeneration,
    deploymentId: z.string().optional().describe('Id of the service deployment.'),
    tenantId: z.string().optional().describe('Tenant that owns the service deployment.'),
    serviceStatus: z
      .string()
      .optional()
      .describe(
        `Status of the service deployment as the service reports it (${deploymentStatuses.join(', ')}, or a newer one).`,
      ),
    imageVersion: z.string().optional().describe('Image version the service reports.'),
    activeRevisionId: z.string().optional().describe('Id of the revision that is currently deployed.'),
    latestRevision: RevisionSummary.optional(),
    revisions: z
      .array(RevisionSummary)
      .max(statusRevisionsLimit)
      .optional()
      .describe('The latest revisions, newest first.'),
    secretsDigest: z
      .string()
      .optional()
      .describe('Salted digest of the secrets last sent, to detect changes the service does not echo back.'),
    conditions,
  })
  .describe('Observed state of the service deployment.');
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

export type DeploymentResource = Resource<'Deployment', DeploymentSpec, DeploymentStatus>;

export const deployment: KindDefinition = {
  ...kindNames.Deployment,
  // `deployments` keeps meaning apps/v1: short names are the unambiguous way to ours.
  shortNames: ['adep', 'agentdeployment', 'agentdeployments'],
  description: 'An agent deployment on the Deployment and Authorization Service.',
  spec: DeploymentSpec,
  status: DeploymentStatus,
  rules: [immutableDefaultingToName('name'), workspaceRefImmutable],
  printerColumns: printerColumns(
    [
      {
        name: 'SERVICE',
        type: 'string',
        jsonPath: '.status.serviceStatus',
        description: 'Status of the service deployment.',
      },
      {
        name: 'REVISION',
        type: 'string',
        jsonPath: '.status.latestRevision.status',
        description: 'Status of the latest revision.',
      },
    ],
    [{ name: 'SOURCE', type: 'string', jsonPath: '.spec.source', description: 'Source kind.' }],
  ),
};
