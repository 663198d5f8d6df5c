// Workspace (namespaced) and ClusterWorkspace (cluster-scoped): where the service is and which key and
// tenant to use, as cert-manager's Issuer and ClusterIssuer. Every other kind may name one in
// spec.workspaceRef; without one, the operator's own flags (or --default-workspace) apply.
import { z } from 'zod';
import { kindNames } from './constants.ts';
import {
  type CelRule,
  conditions,
  immutableWhenSet,
  type KindDefinition,
  objectName,
  observedGeneration,
  printerColumns,
  type Resource,
} from './fields.ts';

const secretKeyName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/);

const serviceUrl = z
  .url({ protocol: /^https?$/ })
  .optional()
  .describe("Base URL of the service, path prefix included. Default: the operator's --service-url.");
const tenantId = z
  .string()
  .min(1)
  .optional()
  .describe("Tenant to act for (sent as X-Tenant-Id). Default: the operator's --tenant-id, if any.");

export const WorkspaceSpec = z
  .strictObject({
    serviceUrl,
    tenantId,
    apiKeySecretRef: z
      .strictObject({
        name: objectName.describe('Name of a Secret in the namespace of this Workspace.'),
        key: secretKeyName.describe('Key of the Secret that holds the API key.'),
      })
      .describe('The Secret holding the API key; it must be in the namespace of this Workspace.'),
  })
  .describe('The service, tenant and API key that resources naming this Workspace act with.');
export type WorkspaceSpec = z.infer<typeof WorkspaceSpec>;

export const ClusterWorkspaceSpec = z
  .strictObject({
    serviceUrl,
    tenantId,
    apiKeySecretRef: z
      .strictObject({
        name: objectName.describe('Name of the Secret.'),
        key: secretKeyName.describe('Key of the Secret that holds the API key.'),
        namespace: z
          .string()
          .min(1)
          .max(63)
          .optional()
          .describe(
            "Namespace of the Secret. Default: the operator's own namespace (its --cluster-resource-namespace).",
          ),
      })
      .describe('The Secret holding the API key.'),
  })
  .describe('The service, tenant and API key that resources naming this ClusterWorkspace act with.');
export type ClusterWorkspaceSpec = z.infer<typeof ClusterWorkspaceSpec>;

export const WorkspaceStatus = z
  .strictObject({
    observedGeneration,
    serviceUrl: z.string().optional().describe('The service URL in use (the spec, or the operator default).'),
    tenantId: z.string().optional().describe('The tenant in use, if any.'),
    usedBy: z
      .array(z.string())
      .max(50)
      .optional()
      .describe(
        'While deletion is held: the resources that still name this workspace (kind namespace/name), at most 50.',
      ),
    conditions,
  })
  .describe('Whether the service accepts the API key.');
export type WorkspaceStatus = z.infer<typeof WorkspaceStatus>;

export type WorkspaceResource = Resource<'Workspace', WorkspaceSpec, WorkspaceStatus>;
export type ClusterWorkspaceResource = Resource<'ClusterWorkspace', ClusterWorkspaceSpec, WorkspaceStatus>;
export type AnyWorkspaceResource = WorkspaceResource | ClusterWorkspaceResource;

const columns = printerColumns(
  [{ name: 'TENANT', type: 'string', jsonPath: '.status.tenantId', description: 'Tenant in use.' }],
  [{ name: 'URL', type: 'string', jsonPath: '.status.serviceUrl', description: 'Service URL in use.' }],
);

export const workspace: KindDefinition = {
  ...kindNames.Workspace,
  shortNames: ['agws'],
  description:
    'A workspace of the service (its URL, tenant and API key) for the resources of one namespace, as an Issuer is for cert-manager.',
  spec: WorkspaceSpec,
  status: WorkspaceStatus,
  rules: [],
  printerColumns: columns,
};

export const clusterWorkspace: KindDefinition = {
  ...kindNames.ClusterWorkspace,
  shortNames: ['agcws'],
  description:
    'A workspace of the service (its URL, tenant and API key) for resources of any namespace, as a ClusterIssuer is for cert-manager.',
  spec: ClusterWorkspaceSpec,
  status: WorkspaceStatus,
  rules: [],
  printerColumns: columns,
};

/** spec.workspaceRef of a namespaced kind: a Workspace of its namespace, or a ClusterWorkspace. */
export const WorkspaceRef = z
  .strictObject({
    kind: z
      .enum(['Workspace', 'ClusterWorkspace'])
      .default('Workspace')
      .describe('Workspace (in the namespace of this resource) or ClusterWorkspace.'),
    name: objectName.describe('Name of the workspace.'),
  })
  .describe(
    "The workspace whose service, tenant and API key this resource acts with. Default: the operator's own. Immutable.",
  );
export type WorkspaceRef = z.infer<typeof WorkspaceRef>;

/** spec.workspaceRef of a cluster-scoped kind: a ClusterWorkspace only. */
export const ClusterWorkspaceRef = z
  .strictObject({
    kind: z.enum(['ClusterWorkspace']).default('ClusterWorkspace').describe('ClusterWorkspace.'),
    name: objectName.describe('Name of the ClusterWorkspace.'),
  })
  .describe(
    "The ClusterWorkspace whose service, tenant and API key this resource acts with. Default: the operator's own. Immutable.",
  );

/** A resource cannot move between workspaces: its service objects live in one. */
export const workspaceRefImmutable: CelRule = immutableWhenSet('spec.workspaceRef', 'spec.workspaceRef');
