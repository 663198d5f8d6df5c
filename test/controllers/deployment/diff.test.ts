import { describe, expect, it } from 'vitest';
import type { DesiredDeployment } from '../../../src/controllers/deployment/desired.ts';
import { diffDeployment, keptFields } from '../../../src/controllers/deployment/diff.ts';
import type { Deployment } from '../../../src/service/wire.ts';

const observed = (over: Partial<Deployment> = {}): Deployment => ({
  id: 'd1',
  tenant_id: 't',
  name: 'n',
  source: 'internal_docker',
  source_config: {
    build_command: 'make',
    resource_spec: { min_scale: 1, cpu: null, max_scale: 3 },
    integration_id: null,
  },
  source_revision_config: { image_uri: 'a:1', repo_commit_sha: null },
  secrets: [{ name: 'S', value: 'v' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r',
  active_revision_id: 'r',
  ...over,
});
const desired = (
  over: Partial<DesiredDeployment['create']> = {},
  revisionSource?: DesiredDeployment['revisionSource'],
): DesiredDeployment => ({
  create: {
    name: 'n',
    source: 'internal_docker',
    source_config: { build_command: 'make', resource_spec: { min_scale: 1 } },
    source_revision_config: { image_uri: 'a:1' },
    secrets: [{ name: 'S', value: 'v' }],
    ...over,
  },
  ...(revisionSource ? { revisionSource } : {}),
});
const digests = { digest: 'D', lastSentDigest: 'D' };

describe('diffDeployment', () => {
  it('is empty when the service holds every field the spec sets (service-filled fields are not drift)', () => {
    expect(diffDeployment(desired(), observed(), digests)).toEqual({ immutable: [] });
  });

  it('patches only the fields that differ, resource_spec whole', () => {
    const diff = diffDeployment(
      desired({ source_config: { build_command: 'make', resource_spec: { min_scale: 2 } } }),
      observed(),
      digests,
    );
    expect(diff.patch).toEqual({ source_config: { resource_spec: { min_scale: 2 } } });
  });

  it('sends the whole revision config, with revision_source, when one field differs', () => {
    const diff = diffDeployment(
      desired({ source_revision_config: { image_uri: 'a:2' } }, 'internal_docker'),
      observed(),
      digests,
    );
    expect(diff.patch).toEqual({
      source_revision_config: { image_uri: 'a:2' },
      revision_source: 'internal_docker',
    });
  });

  it('reports immutable fields instead of patching them', () => {
    const diff = diffDeployment(
      desired({
        source_config: { build_command: 'make', integration_id: '00000000-0000-4000-8000-000000000000' },
      }),
      observed(),
      digests,
    );
    expect(diff).toEqual({ immutable: ['sourceConfig.integrationId'] });
  });

  it('takes an immutable field the service leaves out of its answers for held, not for drift', () => {
    const config = { build_command: 'make', listener_config: { k8s_namespace: 'agents' } };
    expect(diffDeployment(desired({ source_config: config }), observed(), digests)).toEqual({
      immutable: [],
    });
    // Answered, it is compared.
    const answered = observed({
      source_config: { build_command: 'make', listener_config: { k8s_namespace: 'other' } },
    });
    expect(diffDeployment(desired({ source_config: config }), answered, digests).immutable).toEqual([
      'sourceConfig.listenerConfig',
    ]);
  });

  it('names the fields the service keeps once set when the spec does not set them, and patches none', () => {
    const held = observed({
      source_config: {
        build_command: 'make',
        resource_spec: { min_scale: 1 },
        custom_url: 'https://x',
        build_on_push: null,
      },
    });
    expect(keptFields(desired(), held)).toEqual(['sourceConfig.customUrl']);
    expect(diffDeployment(desired(), held, digests)).toEqual({ immutable: [] });
    const set = desired({ source_config: { build_command: 'make', custom_url: 'https://y' } });
    expect(keptFields(set, held)).toEqual([]);
  });

  it('detects secret changes by value when the service echoes them, by digest when it does not', () => {
    expect(
      diffDeployment(desired({ secrets: [{ name: 'S', value: 'w' }] }), observed(), {
        digest: 'E',
        lastSentDigest: 'D',
      }).patch,
    ).toEqual({ secrets: [{ name: 'S', value: 'w' }] });
    const masked = observed({ secrets: [{ name: 'S', value: '' }] });
    expect(diffDeployment(desired(), masked, digests).patch).toBeUndefined();
    expect(diffDeployment(desired(), masked, { digest: 'E', lastSentDigest: 'D' }).patch).toEqual({
      secrets: [{ name: 'S', value: 'v' }],
    });
    expect(diffDeployment(desired({ secrets: [] }), observed(), digests).patch).toEqual({ secrets: [] });
  });
});
