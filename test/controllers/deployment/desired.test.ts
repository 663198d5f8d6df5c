import { describe, expect, it } from 'vitest';
import type { DeploymentResource } from '../../../src/api/deployment.ts';
import { desiredDeployment } from '../../../src/controllers/deployment/desired.ts';

const cr = (spec: Partial<DeploymentResource['spec']>): DeploymentResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'meta-name', namespace: 'ns', uid: 'u1' },
  spec: { source: 'codehost', deletionPolicy: 'Orphan', adopt: false, managementPolicy: 'Manage', ...spec },
});

describe('desiredDeployment', () => {
  it('maps camelCase spec fields 1:1 to the wire, nested Kubernetes objects untouched', () => {
    const { create } = desiredDeployment(
      cr({
        sourceConfig: {
          integrationId: 'i',
          repoUrl: 'u',
          deploymentType: 'prod',
          buildOnPush: true,
          listenerConfig: { k8sNamespace: 'agents' },
          resourceSpec: {
            minScale: 1,
            orchestratorMemoryLimitMb: 512,
            dbStorageGi: 10,
            serviceAccountName: 'sa',
            volumeMounts: [{ name: 'v', mountPath: '/data', readOnly: true }],
          },
        },
        sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'g.json' },
        secretReferences: [{ name: 'A', secretName: 's', secretKey: 'k' }],
      }),
      { secrets: [{ name: 'X', value: 'y' }] },
    );
    expect(create).toEqual({
      name: 'meta-name',
      source: 'codehost',
      source_config: {
        integration_id: 'i',
        repo_url: 'u',
        deployment_type: 'prod',
        build_on_push: true,
        listener_config: { k8s_namespace: 'agents' },
        resource_spec: {
          min_scale: 1,
          orchestrator_memory_limit_mb: 512,
          db_storage_gi: 10,
          service_account_name: 'sa',
          volume_mounts: [{ name: 'v', mountPath: '/data', readOnly: true }],
        },
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'g.json' },
      secrets: [{ name: 'X', value: 'y' }],
      secret_references: [{ name: 'A', secret_name: 's', secret_key: 'k' }],
    });
  });

  it('uses spec.name, the resolved listener and repository', () => {
    const { create, revisionSource } = desiredDeployment(
      cr({
        name: 'svc-name',
        revisionSource: 'internal_docker',
        sourceRevisionConfig: { graphConfigPath: 'g' },
      }),
      {
        secrets: [],
        listenerId: 'L',
        repository: { integrationId: 'I', repoUrl: 'U', branch: 'dev' },
      },
    );
    expect(create.name).toBe('svc-name');
    expect(create.source_config).toEqual({ listener_id: 'L', integration_id: 'I', repo_url: 'U' });
    expect(create.source_revision_config).toEqual({ graph_config_path: 'g', repo_ref: 'dev' });
    expect(revisionSource).toBe('internal_docker');
  });
});
