// Listener (cluster-scoped): a compute target registered with the service (interface §2.8).
import { z } from 'zod';
import { kindNames, managementPolicies } from './constants.ts';
import {
  cel,
  conditions,
  immutable,
  immutableDefaultingToName,
  type KindDefinition,
  observedGeneration,
  printerColumns,
  type Resource,
  timestamp,
} from './fields.ts';
import { ClusterWorkspaceRef, workspaceRefImmutable } from './workspace.ts';

export const ListenerSpec = z
  .strictObject({
    computeType: z
      .enum(['k8s'])
      .default('k8s')
      .meta({
        description: 'Kind of compute infrastructure. Immutable.',
        ...cel(immutable('spec.computeType')),
      }),
    computeId: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Unique id of the compute infrastructure, e.g. the cluster name. Defaults to metadata.name. Immutable.',
      ),
    computeConfig: z
      .strictObject({
        k8sNamespaces: z
          .array(z.string().min(1).max(63))
          .optional()
          .describe('Namespaces of the cluster the listener deploys into.'),
      })
      .optional()
      .describe('Settings of the compute infrastructure (compute_config).'),
    listenerId: z
      .uuid()
      .optional()
      .describe('Id of an existing service listener to bind; otherwise it is found by computeId.'),
    register: z
      .boolean()
      .default(false)
      .describe(
        'Create the listener on the service when none with this computeId exists, and keep computeConfig in sync.',
      ),
    managementPolicy: z
      .enum(managementPolicies)
      .default('Manage')
      .describe(
        'Manage: bind the listener, and with register: true create it and keep computeConfig in sync. ' +
          'Observe: only mirror the listener (by listenerId, else by computeId) into status; nothing is ' +
          'ever registered or changed on the service, whatever register says.',
      ),
    workspaceRef: ClusterWorkspaceRef.optional(),
  })
  // An empty spec is a complete one: `computeId` defaults to metadata.name.
  .prefault({})
  .describe('Desired state of the service listener.');
export type ListenerSpec = z.infer<typeof ListenerSpec>;

export const ListenerStatus = z
  .strictObject({
    observedGeneration,
    listenerId: z.string().optional().describe('Id of the service listener.'),
    version: z.string().optional().describe('Listener version the service reports.'),
    createdAt: timestamp.optional().describe('When the service listener was created.'),
    updatedAt: timestamp.optional().describe('When the service listener last changed.'),
    conditions,
  })
  .describe('Observed state of the service listener.');
export type ListenerStatus = z.infer<typeof ListenerStatus>;

export type ListenerResource = Resource<'Listener', ListenerSpec, ListenerStatus>;

export const listener: KindDefinition = {
  ...kindNames.Listener,
  shortNames: ['alis', 'agentlistener'],
  description: 'A compute infrastructure (a Kubernetes cluster) registered with the service as a listener.',
  spec: ListenerSpec,
  status: ListenerStatus,
  rules: [immutableDefaultingToName('computeId'), workspaceRefImmutable],
  printerColumns: printerColumns([
    {
      name: 'COMPUTE-ID',
      type: 'string',
      jsonPath: '.spec.computeId',
      description: 'Compute id (empty: metadata.name).',
    },
    {
      name: 'LISTENER-ID',
      type: 'string',
      jsonPath: '.status.listenerId',
      description: 'Service listener id.',
    },
    { name: 'VERSION', type: 'string', jsonPath: '.status.version', description: 'Listener version.' },
  ]),
};
