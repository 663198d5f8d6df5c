import { describe, expect, it } from 'vitest';
import type { DeploymentResource } from '../../../src/api/deployment.ts';
import { type InputSources, resolveInputs } from '../../../src/controllers/deployment/inputs.ts';
import type { Repository } from '../../../src/service/wire.ts';

const resource = (hosted: boolean): DeploymentResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'agent', namespace: 'team', uid: 'u' },
  spec: {
    source: 'codehost',
    repository: { owner: 'acme', name: 'support', hosted },
    sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
    deletionPolicy: 'Delete',
    adopt: false,
    managementPolicy: 'Manage',
  },
});

/** Code hosts holding acme/support only in a managed (hosted) integration. */
const onlyManaged: InputSources = {
  secret: async () => ({ missing: 'NotFound' }),
  listener: () => undefined,
  workspaceOf: () => 'default',
  repository: async (owner, name, hosted) =>
    hosted && owner === 'acme' && name === 'support'
      ? ({
          host_integration_id: 'i1',
          url: 'https://github.com/acme/support',
          default_branch: 'main',
        } as Repository)
      : undefined,
};

describe('resolveInputs: spec.repository', () => {
  it('says to set hosted: true when the repository is only in a managed integration', async () => {
    const result = await resolveInputs(resource(false), onlyManaged);
    expect(result).toMatchObject({ problem: { reason: 'RepositoryNotFound', stalled: true } });
    expect('problem' in result && result.problem.message).toContain('set spec.repository.hosted: true');
  });

  it('resolves it once hosted is set', async () => {
    const result = await resolveInputs(resource(true), onlyManaged);
    expect(result).toMatchObject({ inputs: { repository: { integrationId: 'i1', branch: 'main' } } });
  });

  it('gives no hint when no integration holds it', async () => {
    const nowhere = { ...onlyManaged, repository: async () => undefined };
    const result = await resolveInputs(resource(false), nowhere);
    expect('problem' in result && result.problem.message).toBe(
      'repository acme/support is in no code-host integration',
    );
  });
});
