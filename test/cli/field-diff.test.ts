import { describe, expect, it } from 'vitest';
import {
  describeChange,
  describeSecrets,
  diffFields,
  patchChanges,
  secretChanges,
} from '../../src/cli/field-diff.ts';
import type { Deployment } from '../../src/service/wire.ts';

const observed: Deployment = {
  id: '00000000-0000-4000-8000-000000000001',
  tenant_id: '00000000-0000-4000-8000-000000000002',
  name: 'app',
  source: 'internal_docker',
  source_config: {
    deployment_type: 'dev',
    custom_url: null,
    build_on_push: false,
    resource_spec: { min_scale: 2, max_scale: 4, cpu: null, labels: { team: 'a', tier: 'web' } },
  },
  source_revision_config: { image_uri: 'agent:1', repo_commit_sha: null },
  secrets: [
    { name: 'API_TOKEN', value: 'canary-old-token' },
    { name: 'DB_URL', value: 'canary-db-url' },
    { name: 'OLD', value: 'canary-old' },
  ],
  secret_references: [{ name: 'REF', secret_name: 'store-a', secret_key: 'k' }],
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: null,
  active_revision_id: null,
};

describe('diffFields', () => {
  it('walks objects to their leaves and compares arrays whole', () => {
    expect(
      diffFields(
        { a: { b: 1, c: { d: 'x' } }, list: [1, 2], same: [3], added: true },
        { a: { b: 2, c: { d: 'x' } }, list: [1], same: [3], kept: 'not in want' },
      ),
    ).toEqual([
      { field: 'a.b', from: 2, to: 1 },
      { field: 'list', from: [1], to: [1, 2] },
      { field: 'added', to: true },
    ]);
  });

  it('takes null for unset and leaves out what want does not set', () => {
    expect(diffFields({ a: null, b: 1, c: { d: 1 } }, { a: 'x', b: null, c: null })).toEqual([
      { field: 'b', to: 1 },
      { field: 'c.d', to: 1 },
    ]);
  });

  it('shows what a replaced object loses', () => {
    expect(
      diffFields({ r: { a: 1, m: { k: 'v' } } }, { r: { a: 1, b: 2, gone: null, m: { k: 'v', x: 'y' } } }, [
        'r',
      ]),
    ).toEqual([
      { field: 'r.m.x', from: 'y' },
      { field: 'r.b', from: 2 },
    ]);
  });

  it('compares an object with a scalar whole', () => {
    expect(diffFields({ a: { b: 1 } }, { a: 'flat' })).toEqual([{ field: 'a', from: 'flat', to: { b: 1 } }]);
  });
});

describe('patchChanges', () => {
  it('names the fields as the CR spec does', () => {
    const { changes, secrets } = patchChanges(
      {
        source_config: { resource_spec: { min_scale: 1, labels: { team: 'a' } }, custom_url: 'https://x' },
        source_revision_config: { image_uri: 'agent:2' },
        revision_source: 'internal_docker',
        secret_references: [{ name: 'REF', secret_name: 'store-b', secret_key: 'k' }],
      },
      observed,
    );
    expect(changes).toEqual([
      { field: 'sourceConfig.customUrl', to: 'https://x' },
      { field: 'sourceConfig.resourceSpec.minScale', from: 2, to: 1 },
      { field: 'sourceConfig.resourceSpec.labels.tier', from: 'web' },
      { field: 'sourceConfig.resourceSpec.maxScale', from: 4 },
      { field: 'sourceRevisionConfig.imageUri', from: 'agent:1', to: 'agent:2' },
      {
        field: 'secretReferences',
        from: [{ name: 'REF', secretName: 'store-a', secretKey: 'k' }],
        to: [{ name: 'REF', secretName: 'store-b', secretKey: 'k' }],
      },
    ]);
    expect(secrets).toBeUndefined();
    expect(changes.map(describeChange)).toContain('sourceRevisionConfig.imageUri: "agent:1" → "agent:2"');
    expect(describeChange(changes[0]!)).toBe('sourceConfig.customUrl: (unset) → "https://x"');
    expect(describeChange(changes[3]!)).toBe('sourceConfig.resourceSpec.maxScale: 4 → (unset)');
  });

  it('tells secrets apart by name and never carries a value', () => {
    const result = patchChanges(
      {
        secrets: [
          { name: 'API_TOKEN', value: 'canary-new-token' },
          { name: 'DB_URL', value: 'canary-db-url' },
          { name: 'NEW', value: 'canary-new' },
        ],
      },
      observed,
    );
    expect(result).toEqual({
      changes: [],
      secrets: { added: ['NEW'], removed: ['OLD'], changedOrUnknown: ['API_TOKEN'] },
    });
    const text = JSON.stringify(result) + describeSecrets(result.secrets!).join('\n');
    expect(text).not.toContain('canary');
    expect(describeSecrets(result.secrets!)).toEqual([
      'secrets.NEW: added (value not shown)',
      'secrets.OLD: removed',
      'secrets.API_TOKEN: changed or unknown (values not shown)',
    ]);
  });

  it('a value the service does not show is changed or unknown', () => {
    expect(secretChanges([{ name: 'A', value: 'v' }], [{ name: 'A', value: '' }])).toEqual({
      added: [],
      removed: [],
      changedOrUnknown: ['A'],
    });
  });
});
