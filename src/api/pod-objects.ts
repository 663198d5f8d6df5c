// Volume, VolumeMount and Container of resource_spec (interface §2.6): Kubernetes-shaped and already
// camelCase, so the service receives them exactly as written. The fields the interface names are
// described here; anything else is kept (x-kubernetes-preserve-unknown-fields), as the wire keeps it.
import { z } from 'zod';
import { openObject } from './fields.ts';

export const VolumeMount = z
  .looseObject({
    name: z.string().min(1).describe('Name of the volume to mount.'),
    mountPath: z.string().min(1).describe('Path inside the container at which the volume is mounted.'),
    subPath: z.string().optional().describe('Path within the volume to mount instead of its root.'),
    mountPropagation: z.string().optional().describe('How mounts are propagated between host and container.'),
    subPathExpr: z
      .string()
      .optional()
      .describe('Like subPath, with $(VAR) references to the environment expanded.'),
    readOnly: z.boolean().optional().describe('Mount read-only.'),
  })
  .describe('A volume mount, as in a Kubernetes container.');

export const Volume = z
  .looseObject({
    name: z.string().min(1).describe('Name of the volume, referenced by volume mounts.'),
    configMap: openObject('A ConfigMap volume source, as in Kubernetes.').optional(),
    secret: openObject('A Secret volume source, as in Kubernetes.').optional(),
    emptyDir: openObject('An emptyDir volume source, as in Kubernetes.').optional(),
    persistentVolumeClaim: openObject('A PersistentVolumeClaim volume source, as in Kubernetes.').optional(),
    nfs: openObject('An NFS volume source, as in Kubernetes.').optional(),
    projected: openObject('A projected volume source, as in Kubernetes.').optional(),
    downwardAPI: openObject('A downward API volume source, as in Kubernetes.').optional(),
    csi: openObject('A CSI volume source, as in Kubernetes.').optional(),
  })
  .describe('A volume, as in a Kubernetes pod.');

export const Container = z
  .looseObject({
    name: z.string().min(1).describe('Name of the container.'),
    image: z.string().optional().describe('Container image reference.'),
    imagePullPolicy: z.string().optional().describe('Always, IfNotPresent or Never.'),
    workingDir: z.string().optional().describe('Working directory of the container.'),
    restartPolicy: z
      .string()
      .optional()
      .describe('Restart policy of an init container (Always makes it a sidecar).'),
    command: z.array(z.string()).optional().describe('Entrypoint array.'),
    args: z.array(z.string()).optional().describe('Arguments to the entrypoint.'),
    env: z
      .array(
        z
          .looseObject({
            name: z.string().min(1).describe('Name of the environment variable.'),
            value: z.string().optional().describe('Value of the environment variable.'),
            valueFrom: openObject(
              'Source of the value, as in Kubernetes (secretKeyRef, configMapKeyRef …).',
            ).optional(),
          })
          .describe('An environment variable.'),
      )
      .optional()
      .describe('Environment variables of the container.'),
    envFrom: z
      .array(openObject('A source of environment variables, as in Kubernetes.'))
      .optional()
      .describe('Sources of environment variables.'),
    resources: z
      .looseObject({
        limits: openObject('Maximum resources by name, e.g. cpu: 500m, memory: 256Mi.').optional(),
        requests: openObject('Requested resources by name, e.g. cpu: 100m, memory: 128Mi.').optional(),
      })
      .optional()
      .describe('Compute resources of the container.'),
    volumeMounts: z.array(VolumeMount).optional().describe('Volumes mounted into the container.'),
    securityContext: openObject('Security context of the container, as in Kubernetes.').optional(),
  })
  .describe('A container, as in a Kubernetes pod.');
