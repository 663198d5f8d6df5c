import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { camelCase } from '../../src/api/case.ts';
import { category, group, version } from '../../src/api/constants.ts';
import { crdDocuments, crdFiles, crdsYaml, type JsonSchema, structural } from '../../src/api/crd.ts';
import { ResourceSpecInput, SourceConfigInput, SourceRevisionConfigInput } from '../../src/service/wire.ts';

const docs = crdDocuments();
const byKind = new Map(docs.map((d) => [d.spec.names.kind, d]));
const schemaOf = (kind: string) => byKind.get(kind)!.spec.versions[0]!.schema.openAPIV3Schema as JsonSchema;

/** Every schema node with its path, depth first; `named` for the root and properties (what kubectl explain lists). */
function* walk(node: JsonSchema, path: string, named = true): Generator<[string, JsonSchema, boolean]> {
  yield [path, node, named];
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
    yield* walk(child, `${path}.${name}`);
  }
  if (node.items) yield* walk(node.items as JsonSchema, `${path}[]`, false);
  if (typeof node.additionalProperties === 'object') {
    yield* walk(node.additionalProperties as JsonSchema, `${path}.*`, false);
  }
}

function at(kind: string, path: string): JsonSchema {
  let node = schemaOf(kind);
  for (const part of path.split('.')) {
    node =
      part === '[]' ? (node.items as JsonSchema) : (node.properties as Record<string, JsonSchema>)[part]!;
    if (!node) throw new Error(`${kind}: no ${path}`);
  }
  return node;
}

const rules = (node: JsonSchema) =>
  ((node['x-kubernetes-validations'] ?? []) as { rule: string; message: string }[]).map((r) => r.message);

describe('generated CRDs', () => {
  it('are structural: every node is typed or explicitly open, every property described', () => {
    const problems: string[] = [];
    for (const doc of docs) {
      for (const [path, node, named] of walk(schemaOf(doc.spec.names.kind), doc.spec.names.kind)) {
        if (!node.type && !node['x-kubernetes-preserve-unknown-fields']) problems.push(`${path}: no type`);
        if (named && !node.description && !path.endsWith('.metadata'))
          problems.push(`${path}: no description`);
        for (const key of ['anyOf', 'oneOf', 'allOf', '$ref', '$schema', 'const']) {
          if (key in node) problems.push(`${path}: ${key}`);
        }
        if (node.additionalProperties === false) problems.push(`${path}: additionalProperties false`);
        if (node.type === 'object' && !node.properties && !node.additionalProperties) {
          if (!node['x-kubernetes-preserve-unknown-fields'] && !path.endsWith('.metadata')) {
            problems.push(`${path}: object without fields`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('name the four kinds, their scope, short names and category', () => {
    const names = docs.map((d) => ({
      name: d.metadata.name,
      kind: d.spec.names.kind,
      scope: d.spec.scope,
      shortNames: d.spec.names.shortNames,
    }));
    expect(names).toEqual([
      {
        name: 'deployments.deploy.agents.dev',
        kind: 'Deployment',
        scope: 'Namespaced',
        shortNames: ['adep', 'agentdeployment', 'agentdeployments'],
      },
      {
        name: 'listeners.deploy.agents.dev',
        kind: 'Listener',
        scope: 'Cluster',
        shortNames: ['alis', 'agentlistener'],
      },
      {
        name: 'agentconnections.deploy.agents.dev',
        kind: 'AgentConnection',
        scope: 'Namespaced',
        shortNames: ['aconn'],
      },
      {
        name: 'oauthtokens.deploy.agents.dev',
        kind: 'OAuthToken',
        scope: 'Namespaced',
        shortNames: ['otok'],
      },
      {
        name: 'workspaces.deploy.agents.dev',
        kind: 'Workspace',
        scope: 'Namespaced',
        shortNames: ['agws'],
      },
      {
        name: 'clusterworkspaces.deploy.agents.dev',
        kind: 'ClusterWorkspace',
        scope: 'Cluster',
        shortNames: ['agcws'],
      },
    ]);
    for (const doc of docs) {
      expect(doc.spec.group).toBe(group);
      expect(doc.spec.names.categories).toEqual([category]);
      expect(doc.spec.versions.map((v) => [v.name, v.served, v.storage, v.subresources])).toEqual([
        [version, true, true, { status: {} }],
      ]);
      // apps/v1 Deployments answer to these; ours must not.
      expect(doc.spec.names.shortNames).not.toContain('deploy');
    }
  });

  it('show the agreed printer columns', () => {
    const columns = Object.fromEntries(
      docs.map((d) => [d.spec.names.kind, d.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name)]),
    );
    expect(columns).toEqual({
      Deployment: ['READY', 'REASON', 'SYNCED', 'SERVICE', 'REVISION', 'AGE', 'SOURCE', 'MESSAGE'],
      Listener: ['READY', 'REASON', 'SYNCED', 'COMPUTE-ID', 'LISTENER-ID', 'VERSION', 'AGE', 'MESSAGE'],
      AgentConnection: ['READY', 'REASON', 'SYNCED', 'AGENT', 'TOKEN', 'PROVIDER', 'AGE', 'MESSAGE'],
      OAuthToken: ['READY', 'REASON', 'SYNCED', 'TOKEN', 'LABEL', 'DEFAULT', 'AGE', 'MESSAGE'],
      Workspace: ['READY', 'REASON', 'SYNCED', 'TENANT', 'AGE', 'URL', 'MESSAGE'],
      ClusterWorkspace: ['READY', 'REASON', 'SYNCED', 'TENANT', 'AGE', 'URL', 'MESSAGE'],
    });
    const ready = byKind
      .get('Deployment')!
      .spec.versions[0]!.additionalPrinterColumns.find((c) => c.name === 'READY');
    expect(ready?.jsonPath).toBe('.status.conditions[?(@.type=="Ready")].status');
    // -o wide only: the long ones.
    for (const doc of docs) {
      const wide = doc.spec.versions[0]!.additionalPrinterColumns.filter((c) => (c.priority ?? 0) > 0);
      expect(wide.at(-1)).toMatchObject({
        name: 'MESSAGE',
        jsonPath: '.status.conditions[?(@.type=="Ready")].message',
      });
    }
  });

  it('map every wire field of source_config, resource_spec and source_revision_config 1:1', () => {
    const keys = (node: JsonSchema) => Object.keys(node.properties as object).sort();
    const camel = (shape: object) => Object.keys(shape).map(camelCase).sort();
    expect(keys(at('Deployment', 'spec.sourceConfig'))).toEqual(camel(SourceConfigInput.shape));
    expect(keys(at('Deployment', 'spec.sourceConfig.resourceSpec'))).toEqual(camel(ResourceSpecInput.shape));
    // repo_commit_sha is response-only (interface §2.1).
    expect(keys(at('Deployment', 'spec.sourceRevisionConfig'))).toEqual(
      camel(SourceRevisionConfigInput.shape),
    );
    expect(at('Deployment', 'spec.sourceConfig.resourceSpec.cpu').type).toBe('number');
    expect(at('Deployment', 'spec.sourceConfig.resourceSpec.dbMaxConnections').type).toBe('integer');
  });

  it('keep Kubernetes-shaped sub-objects open and keyed lists keyed', () => {
    const volume = at('Deployment', 'spec.sourceConfig.resourceSpec.volumes.[]');
    expect(volume['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(at('Deployment', 'spec.sourceConfig.resourceSpec.volumes.[].configMap')).toMatchObject({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(at('Deployment', 'spec.secrets')).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(at('Deployment', 'status.conditions')).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    });
  });

  it('carry defaults, formats without zod regexes, and integers without safe-integer bounds', () => {
    expect(at('Deployment', 'spec.deletionPolicy')).toMatchObject({
      default: 'Orphan',
      enum: ['Orphan', 'Delete'],
    });
    expect(at('Deployment', 'spec.adopt').default).toBe(false);
    expect(at('Listener', 'spec').default).toEqual({});
    expect(at('Listener', 'spec.computeType').default).toBe('k8s');
    expect(at('Deployment', 'spec.sourceConfig.integrationId')).toEqual({
      description: expect.any(String),
      type: 'string',
      format: 'uuid',
    });
    expect(at('Deployment', 'status.observedGeneration')).toEqual({
      description: expect.any(String),
      type: 'integer',
      minimum: 0,
    });
    expect(schemaOf('Deployment').required).toEqual(['spec']);
    expect(schemaOf('Listener').required).toBeUndefined();
  });

  it('attach the CEL rules where they can see what they compare', () => {
    expect(rules(schemaOf('Deployment'))).toEqual([
      'spec.name cannot be changed after creation (when unset, it is metadata.name)',
      'spec.workspaceRef cannot be changed after creation (nor set or removed later)',
    ]);
    expect(rules(at('Deployment', 'spec.source'))).toEqual(['spec.source cannot be changed after creation']);
    expect(rules(at('Deployment', 'spec'))).toContain(
      'spec.secretReferences is allowed only when spec.source is external_docker',
    );
    expect(rules(at('Deployment', 'spec.secrets.[]'))).toEqual(['set exactly one of value or valueFrom']);
    expect(rules(schemaOf('Listener'))).toEqual([
      'spec.computeId cannot be changed after creation (when unset, it is metadata.name)',
      'spec.workspaceRef cannot be changed after creation (nor set or removed later)',
    ]);
    expect(rules(at('AgentConnection', 'spec.agentId'))).toEqual([
      'spec.agentId cannot be changed after creation',
    ]);
    const integration = (at('Deployment', 'spec')['x-kubernetes-validations'] as { rule: string }[]).find(
      (r) => r.rule.includes('integrationId =='),
    );
    expect(integration?.rule).toBe(
      '(has(self.sourceConfig) && has(self.sourceConfig.integrationId)) == ' +
        '(has(oldSelf.sourceConfig) && has(oldSelf.sourceConfig.integrationId)) && ' +
        '(!(has(self.sourceConfig) && has(self.sourceConfig.integrationId)) || ' +
        'self.sourceConfig.integrationId == oldSelf.sourceConfig.integrationId)',
    );
  });

  it('are generated deterministically, one file per kind plus a kustomization', () => {
    expect(crdsYaml()).toBe(crdsYaml());
    const files = crdFiles();
    expect([...files.keys()]).toEqual([
      'deployments.yaml',
      'listeners.yaml',
      'agentconnections.yaml',
      'oauthtokens.yaml',
      'workspaces.yaml',
      'clusterworkspaces.yaml',
      'kustomization.yaml',
    ]);
    expect(files.get('kustomization.yaml')).toContain('- deployments.yaml\n');
    expect(crdsYaml().split('\n---\n')).toHaveLength(6);
  });
});

describe('structural', () => {
  it('refuses what the apiserver cannot take, naming the path', () => {
    const json = (s: z.ZodType) => z.toJSONSchema(s, { target: 'openapi-3.0' }) as JsonSchema;
    expect(() => structural(json(z.object({ a: z.union([z.string(), z.number()]) })))).toThrow(
      '.a: "anyOf" has no structural equivalent',
    );
    expect(() => structural(json(z.object({ b: z.unknown() })))).toThrow('.b: every schema needs a type');
  });

  it('turns loose objects into preserved unknown fields and drops strictness', () => {
    const out = structural(
      z.toJSONSchema(z.object({ a: z.looseObject({}), b: z.strictObject({}) }), {
        target: 'openapi-3.0',
      }) as JsonSchema,
    );
    expect(out).toEqual({
      type: 'object',
      properties: {
        a: { type: 'object', properties: {}, 'x-kubernetes-preserve-unknown-fields': true },
        b: { type: 'object', properties: {} },
      },
      required: ['a', 'b'],
    });
  });
});
