// The generated CRDs on a real kube-apiserver: accepted, explained, and enforcing their rules.
import { beforeAll, describe, expect, it } from 'vitest';
import { apiVersion } from '../../src/api/constants.ts';
import { crdDocuments } from '../../src/api/crd.ts';
import { createTestNamespace, installCrds, kubectl } from '../support/kube.ts';

let ns: string;

beforeAll(async () => {
  await installCrds(crdDocuments());
  ns = await createTestNamespace('api');
});

async function apply(manifest: object, ...flags: string[]): Promise<string> {
  const { stdout } = await kubectl(['apply', '-n', ns, ...flags, '-f', '-'], {
    input: JSON.stringify(manifest),
  });
  return stdout;
}

async function get(resource: string): Promise<{ spec: Record<string, unknown> }> {
  return JSON.parse((await kubectl(['get', '-n', ns, resource, '-o', 'json'])).stdout);
}

const integrationId = '0b6f7d5e-8a52-4c1e-9f3a-2d4c6b8e1a01';
const listenerId = '7c1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';

function agentDeployment(name: string, spec: Record<string, unknown>) {
  return { apiVersion, kind: 'Deployment', metadata: { name }, spec };
}

describe('CRDs on a real apiserver', () => {
  it('kubectl explain teaches the fields', async () => {
    const { stdout } = await kubectl(['explain', 'agentdeployments.spec.sourceConfig']);
    expect(stdout).toContain('KIND:       Deployment');
    expect(stdout).toContain('Source-specific settings (source_config)');
    expect(stdout).toMatch(/integrationId\s+<string>\s+Code-host integration id/);
    // kubectl cuts a long enum short; the description names every value.
    expect(stdout).toMatch(
      /deploymentType\s+<string>\s+enum: dev_free, dev, prod, .*\n\s+dev_free, dev, prod, dev_zero, dev_free_zero\. Immutable\./,
    );
    const minScale = await kubectl(['explain', 'adep.spec.sourceConfig.resourceSpec.minScale']);
    expect(minScale.stdout).toContain('Web workers: minimum number of replicas (resource_spec.min_scale).');
  });

  it('accepts a spec using every field, keeps open sub-objects and fills in defaults', async () => {
    const spec = {
      name: 'kitchen-sink',
      source: 'external_docker',
      sourceConfig: {
        deploymentType: 'dev',
        buildOnPush: false,
        customUrl: 'https://agents.example.com',
        listenerId,
        listenerConfig: { k8sNamespace: 'agents' },
        installCommand: 'npm ci',
        buildCommand: 'npm run build',
        resourceSpec: {
          minScale: 1,
          maxScale: 3,
          cpu: 0.5,
          memoryMb: 512,
          dbStorageGi: 10,
          labels: { team: 'platform' },
          serviceAccountName: 'agent',
          imagePullSecrets: [{ name: 'registry' }],
          volumes: [{ name: 'config', configMap: { name: 'agent-config', defaultMode: 420 } }],
          volumeMounts: [{ name: 'config', mountPath: '/etc/agent', readOnly: true }],
          sidecars: [
            {
              name: 'proxy',
              image: 'envoyproxy/envoy:v1.31',
              env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
              resources: { limits: { cpu: '500m', memory: '128Mi' } },
              ports: [{ containerPort: 9901 }],
            },
          ],
        },
      },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1.2.3' },
      secrets: [
        { name: 'LOG_LEVEL', value: 'debug' },
        {
          name: 'API_KEY',
          valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'api-key', optional: true } },
        },
      ],
      secretsFrom: [{ secretRef: { name: 'agent-env' } }],
      secretReferences: [{ name: 'DB_PASSWORD', secretName: 'db', secretKey: 'password' }],
      imageVersion: '1.2.3',
    };
    await apply(agentDeployment('kitchen-sink', spec));
    const stored = await get('adep/kitchen-sink');
    expect(stored.spec).toEqual({
      ...spec,
      deletionPolicy: 'Orphan',
      adopt: false,
      managementPolicy: 'Manage',
    });
  });

  it('shows the printer columns and the Ready condition written through the status subresource', async () => {
    await apply(
      agentDeployment('columns', { source: 'codehost', repository: { owner: 'acme', name: 'agent' } }),
    );
    const status = {
      serviceStatus: 'READY',
      latestRevision: { id: 'r1', status: 'DEPLOYED' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: '',
          lastTransitionTime: '2026-01-02T03:04:05Z',
          observedGeneration: 1,
        },
        {
          type: 'Synced',
          status: 'True',
          reason: 'Synced',
          message: '',
          lastTransitionTime: '2026-01-02T03:04:05Z',
          observedGeneration: 1,
        },
      ],
    };
    await kubectl([
      'patch',
      '-n',
      ns,
      'adep/columns',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    ]);
    const { stdout } = await kubectl(['get', '-n', ns, 'adep/columns']);
    const [header, row] = stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    expect(header).toEqual(['NAME', 'READY', 'REASON', 'SYNCED', 'SERVICE', 'REVISION', 'AGE']);
    expect(row?.slice(0, 6)).toEqual(['columns', 'True', 'Ready', 'Synced', 'READY', 'DEPLOYED']);
  });

  it('takes deploymentType dev_zero, and keeps status values the service adds as it reports them', async () => {
    await apply(
      agentDeployment('zero', { source: 'internal_docker', sourceConfig: { deploymentType: 'dev_zero' } }),
    );
    expect((await get('adep/zero')).spec.sourceConfig).toEqual({ deploymentType: 'dev_zero' });
    await apply(
      agentDeployment('free-zero', {
        source: 'internal_docker',
        sourceConfig: { deploymentType: 'dev_free_zero' },
      }),
    );
    const status = {
      serviceStatus: 'AWAITING_FINAL_DELETE',
      latestRevision: { id: 'r1', status: 'ROLLING_BACK' },
      revisions: [{ id: 'r1', status: 'ROLLING_BACK' }],
    };
    await kubectl([
      'patch',
      '-n',
      ns,
      'adep/zero',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    ]);
    const stored = JSON.parse((await kubectl(['get', '-n', ns, 'adep/zero', '-o', 'json'])).stdout);
    expect(stored.status).toEqual(status);
  });

  it('shows status {} on a resource nothing has written status to, which Flux reads as in progress', async () => {
    await apply(
      agentDeployment('untouched', { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'a:1' } }),
    );
    const cr = (await get('deployments.deploy.agents.dev/untouched')) as { status?: unknown };
    expect(cr.status).toEqual({});
  });

  it('keeps `deployments` meaning apps/v1 while `agents` lists ours', async () => {
    await apply(agentDeployment('ours', { source: 'internal_docker' }));
    expect((await kubectl(['get', 'deployments', '-n', ns, '-o', 'name'])).stdout).toBe('');
    expect((await kubectl(['explain', 'deployments'])).stdout).toMatch(/GROUP:\s+apps/);
    const agents = await kubectl(['get', 'agents', '-n', ns, '-o', 'name']);
    expect(agents.stdout).toContain('deployment.deploy.agents.dev/ours');
  });

  describe('rejects invalid manifests with a clear message', () => {
    const rejected = (manifest: object, message: string | RegExp, ...flags: string[]) =>
      expect(apply(manifest, ...flags)).rejects.toThrow(message);

    it('a missing source', () => rejected(agentDeployment('no-source', {}), 'spec.source: Required value'));

    it('an unknown enum value', async () => {
      await rejected(
        agentDeployment('bad-enum', { source: 'github' }),
        'spec.source: Unsupported value: "github": supported values: "codehost", "external_docker"',
      );
      await rejected(
        agentDeployment('bad-enum', { source: 'codehost', sourceConfig: { deploymentType: 'staging' } }),
        'spec.sourceConfig.deploymentType: Unsupported value: "staging"',
      );
    });

    it('secretReferences outside external_docker', () =>
      rejected(
        agentDeployment('refs', {
          source: 'codehost',
          secretReferences: [{ name: 'A', secretName: 'b', secretKey: 'c' }],
        }),
        'spec.secretReferences: Invalid value: "object": spec.secretReferences is allowed only when spec.source is external_docker',
      ));

    it('a secret with both value and valueFrom, or neither; duplicate names', async () => {
      await rejected(
        agentDeployment('secrets', {
          source: 'codehost',
          secrets: [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
        }),
        'spec.secrets[0]: Invalid value: "object": set exactly one of value or valueFrom',
      );
      await rejected(
        agentDeployment('secrets', { source: 'codehost', secrets: [{ name: 'A' }] }),
        'set exactly one of value or valueFrom',
      );
      await rejected(
        agentDeployment('secrets', {
          source: 'codehost',
          secrets: [
            { name: 'A', value: 'x' },
            { name: 'A', value: 'y' },
          ],
        }),
        'spec.secrets[1]: Duplicate value',
      );
    });

    it('listenerRef together with listenerId', () =>
      rejected(
        agentDeployment('listener-both', {
          source: 'external_docker',
          listenerRef: { name: 'cluster-a' },
          sourceConfig: { listenerId },
        }),
        'spec.listenerRef: Invalid value: "object": set spec.listenerRef or spec.sourceConfig.listenerId, not both',
      ));

    it('repository outside codehost, or together with integrationId/repoUrl', async () => {
      await rejected(
        agentDeployment('repo', { source: 'internal_docker', repository: { owner: 'acme', name: 'agent' } }),
        'spec.repository is allowed only when spec.source is codehost',
      );
      await rejected(
        agentDeployment('repo', {
          source: 'codehost',
          repository: { owner: 'acme', name: 'agent' },
          sourceConfig: { repoUrl: 'https://code.example.com/acme/agent' },
        }),
        'set spec.repository or spec.sourceConfig.integrationId/repoUrl, not both',
      );
    });

    it('an unknown field, under strict field validation (pruned otherwise)', async () => {
      await rejected(
        agentDeployment('unknown', {
          source: 'codehost',
          sourceRevisionConfig: { repoRef: 'main', colour: 'blue' },
        }),
        'strict decoding error: unknown field "spec.sourceRevisionConfig.colour"',
        '--validate=strict',
      );
      await apply(
        agentDeployment('unknown', {
          source: 'codehost',
          sourceRevisionConfig: { repoRef: 'main', colour: 'blue' },
        }),
        '--validate=false',
      );
      expect((await get('adep/unknown')).spec.sourceRevisionConfig).toEqual({ repoRef: 'main' });
    });
  });

  describe('keeps immutable fields immutable', () => {
    const base = {
      source: 'codehost',
      sourceConfig: { integrationId, repoUrl: 'https://code.example.com/a/b' },
    };

    it('spec.name: its effective value (metadata.name when unset) cannot change', async () => {
      await apply(agentDeployment('named', base));
      await expect(apply(agentDeployment('named', { ...base, name: 'renamed' }))).rejects.toThrow(
        'spec.name: Invalid value: "object": spec.name cannot be changed after creation',
      );
      // Writing out the default changes nothing, so it is allowed.
      await apply(agentDeployment('named', { ...base, name: 'named' }));
    });

    it('spec.source', async () => {
      await apply(agentDeployment('sourced', base));
      await expect(apply(agentDeployment('sourced', { ...base, source: 'internal_source' }))).rejects.toThrow(
        'spec.source: Invalid value: "string": spec.source cannot be changed after creation',
      );
    });

    it('spec.sourceConfig.integrationId: neither changed nor removed', async () => {
      await apply(agentDeployment('integrated', base));
      const message = 'spec.sourceConfig.integrationId cannot be changed after creation';
      await expect(
        apply(
          agentDeployment('integrated', {
            ...base,
            sourceConfig: { ...base.sourceConfig, integrationId: '1b6f7d5e-8a52-4c1e-9f3a-2d4c6b8e1a01' },
          }),
        ),
      ).rejects.toThrow(`spec.sourceConfig.integrationId: Invalid value: "object": ${message}`);
      await expect(apply(agentDeployment('integrated', { source: 'codehost' }))).rejects.toThrow(message);
      // Mutable fields next to it still change.
      await apply(
        agentDeployment('integrated', { ...base, sourceConfig: { ...base.sourceConfig, buildOnPush: true } }),
      );
    });

    it('spec.sourceConfig.listenerConfig cannot be added later', async () => {
      await apply(agentDeployment('listened', { source: 'external_docker', sourceConfig: { listenerId } }));
      await expect(
        apply(
          agentDeployment('listened', {
            source: 'external_docker',
            sourceConfig: { listenerId, listenerConfig: { k8sNamespace: 'x' } },
          }),
        ),
      ).rejects.toThrow('spec.sourceConfig.listenerConfig cannot be changed after creation');
    });

    it('AgentConnection spec.agentId', async () => {
      const connection = (agentId: string) => ({
        apiVersion,
        kind: 'AgentConnection',
        metadata: { name: 'conn' },
        spec: { agentId, oauthTokenId: 'tok-1' },
      });
      await apply(connection('agent-1'));
      await expect(apply(connection('agent-2'))).rejects.toThrow(
        'spec.agentId: Invalid value: "string": spec.agentId cannot be changed after creation',
      );
    });

    it('Listener spec.computeId, defaulting the rest of an empty spec', async () => {
      const name = `cluster-${ns}`;
      const listener = (spec?: object) => ({
        apiVersion,
        kind: 'Listener',
        metadata: { name },
        ...(spec && { spec }),
      });
      try {
        await apply(listener());
        const stored = JSON.parse((await kubectl(['get', `listener/${name}`, '-o', 'json'])).stdout);
        expect(stored.spec).toEqual({ computeType: 'k8s', register: false, managementPolicy: 'Manage' });
        await expect(apply(listener({ computeId: 'other' }))).rejects.toThrow(
          'spec.computeId: Invalid value: "object": spec.computeId cannot be changed after creation (when unset, it is metadata.name)',
        );
        await apply(listener({ computeId: name, computeConfig: { k8sNamespaces: ['agents'] } }));
      } finally {
        await kubectl(['delete', `listener/${name}`, '--ignore-not-found']);
      }
    });
  });
});
