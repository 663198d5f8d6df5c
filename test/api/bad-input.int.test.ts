// Invalid manifests against the real kube-apiserver: each is refused, and the refusal names the field
// and says what is wrong in words a person understands. Complements crds.int.test.ts (no case twice).
import { beforeAll, describe, expect, it } from 'vitest';
import { apiVersion } from '../../src/api/constants.ts';
import { crdDocuments } from '../../src/api/crd.ts';
import { createTestNamespace, installCrds, kubectl } from '../support/kube.ts';

let ns: string;

beforeAll(async () => {
  await installCrds(crdDocuments());
  ns = await createTestNamespace('bad-input');
});

/** kubectl apply with strict field validation, as kubectl does by default. */
async function apply(manifest: object): Promise<void> {
  await kubectl(['apply', '-n', ns, '--validate=strict', '-f', '-'], { input: JSON.stringify(manifest) });
}

const uuid = '0b6f7d5e-8a52-4c1e-9f3a-2d4c6b8e1a01';
const otherUuid = '1b6f7d5e-8a52-4c1e-9f3a-2d4c6b8e1a01';
const long = (n: number) => 'a'.repeat(n);

let serial = 0;
/** A unique name per case: cases never see each other's objects. */
const fresh = () => `bad-${serial++}`;

const deployment = (spec: unknown, name = fresh()) => ({
  apiVersion,
  kind: 'Deployment',
  metadata: { name },
  spec,
});
const listener = (spec: unknown) => ({
  apiVersion,
  kind: 'Listener',
  metadata: { name: `${fresh()}-${ns}` },
  spec,
});
const connection = (spec: unknown) => ({
  apiVersion,
  kind: 'AgentConnection',
  metadata: { name: fresh() },
  spec,
});
const token = (spec: unknown) => ({ apiVersion, kind: 'OAuthToken', metadata: { name: fresh() }, spec });

interface Case {
  name: string;
  /** Applied first and accepted: the case is then an update of it. */
  before?: object;
  manifest: object | ((before: object) => object);
  message: string;
}

/** An update of `before`: same kind and name, spec changed. */
const update = (spec: (old: Record<string, unknown>) => unknown) => (before: object) => {
  const b = before as { spec: Record<string, unknown> };
  return { ...b, spec: spec(b.spec) };
};

const docker = { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'registry.local/a:1' } };

const cases: Case[] = [
  // Types
  {
    name: 'source of the wrong type',
    manifest: deployment({ source: 3 }),
    message: 'spec.source: Invalid value: "integer": spec.source in body must be of type string',
  },
  {
    name: 'spec missing',
    manifest: { apiVersion, kind: 'Deployment', metadata: { name: fresh() } },
    message: 'spec: Required value',
  },
  {
    name: 'spec not an object',
    manifest: deployment('codehost'),
    message: 'spec: Invalid value: "string": spec in body must be of type object',
  },
  {
    name: 'buildOnPush not a boolean',
    manifest: deployment({ ...docker, sourceConfig: { buildOnPush: 'yes' } }),
    message:
      'spec.sourceConfig.buildOnPush: Invalid value: "string": spec.sourceConfig.buildOnPush in body must be of type boolean',
  },
  {
    name: 'adopt not a boolean',
    manifest: deployment({ ...docker, adopt: 'true' }),
    message: 'spec.adopt in body must be of type boolean',
  },
  {
    name: 'cpu as a Kubernetes quantity string',
    manifest: deployment({ ...docker, sourceConfig: { resourceSpec: { cpu: '500m' } } }),
    message: 'spec.sourceConfig.resourceSpec.cpu in body must be of type number',
  },
  {
    name: 'a fractional replica count',
    manifest: deployment({ ...docker, sourceConfig: { resourceSpec: { maxScale: 1.5 } } }),
    message: 'spec.sourceConfig.resourceSpec.maxScale in body must be of type integer',
  },
  {
    name: 'secrets as one string rather than a list',
    manifest: deployment({ ...docker, secrets: 'TOKEN=x' }),
    message: 'spec.secrets: Invalid value: "string": spec.secrets in body must be of type array',
  },
  {
    name: 'labels with a non-string value',
    manifest: deployment({ ...docker, sourceConfig: { resourceSpec: { labels: { tier: 1 } } } }),
    message: 'spec.sourceConfig.resourceSpec.labels.tier in body must be of type string',
  },
  // Bounds
  {
    name: 'a negative replica count',
    manifest: deployment({ ...docker, sourceConfig: { resourceSpec: { minScale: -1 } } }),
    message: 'spec.sourceConfig.resourceSpec.minScale in body should be greater than or equal to 0',
  },
  {
    name: 'an empty service deployment name',
    manifest: deployment({ ...docker, name: '' }),
    message: 'spec.name in body should be at least 1 chars long',
  },
  {
    name: 'an empty secret name',
    manifest: deployment({ ...docker, secrets: [{ name: '', value: 'x' }] }),
    message: 'spec.secrets[0].name in body should be at least 1 chars long',
  },
  {
    name: 'a Secret reference name over 253 characters',
    manifest: deployment({
      ...docker,
      secrets: [{ name: 'A', valueFrom: { secretKeyRef: { name: long(254), key: 'k' } } }],
    }),
    message: 'spec.secrets[0].valueFrom.secretKeyRef.name: Too long: may not be more than 253 bytes',
  },
  {
    name: 'a listener namespace over 63 characters',
    manifest: deployment({
      source: 'external_docker',
      sourceConfig: { listenerId: uuid, listenerConfig: { k8sNamespace: long(64) } },
    }),
    message: 'spec.sourceConfig.listenerConfig.k8sNamespace: Too long: may not be more than 63 bytes',
  },
  {
    name: 'an image pull Secret without a name',
    manifest: deployment({ ...docker, sourceConfig: { resourceSpec: { imagePullSecrets: [{ name: '' }] } } }),
    message:
      'spec.sourceConfig.resourceSpec.imagePullSecrets[0].name in body should be at least 1 chars long',
  },
  // Formats and enums
  {
    name: 'an integration id that is not a UUID',
    manifest: deployment({
      source: 'codehost',
      sourceConfig: { integrationId: 'acme', repoUrl: 'https://github.com/acme/a' },
    }),
    message:
      'spec.sourceConfig.integrationId: Invalid value: "acme": spec.sourceConfig.integrationId in body must be of type uuid: "acme"',
  },
  {
    name: 'a listener id that is not a UUID',
    manifest: deployment({ source: 'external_docker', sourceConfig: { listenerId: 'dev-cluster' } }),
    message: 'spec.sourceConfig.listenerId in body must be of type uuid: "dev-cluster"',
  },
  {
    name: 'an unknown deletion policy',
    manifest: deployment({ ...docker, deletionPolicy: 'Keep' }),
    message: 'spec.deletionPolicy: Unsupported value: "Keep": supported values: "Orphan", "Delete"',
  },
  {
    name: 'an unknown revision source',
    manifest: deployment({ ...docker, revisionSource: 'zip' }),
    message: 'spec.revisionSource: Unsupported value: "zip"',
  },
  // Required fields
  {
    name: 'a Secret reference without a key',
    manifest: deployment({ ...docker, secrets: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's' } } }] }),
    message: 'spec.secrets[0].valueFrom.secretKeyRef.key: Required value',
  },
  {
    name: 'a secret reference without secretKey',
    manifest: deployment({ source: 'external_docker', secretReferences: [{ name: 'A', secretName: 'db' }] }),
    message: 'spec.secretReferences[0].secretKey: Required value',
  },
  {
    name: 'a repository without its owner',
    manifest: deployment({ source: 'codehost', repository: { name: 'agent' } }),
    message: 'spec.repository.owner: Required value',
  },
  {
    name: 'a listenerRef without a name',
    manifest: deployment({ source: 'external_docker', listenerRef: {} }),
    message: 'spec.listenerRef.name: Required value',
  },
  // CEL rules
  {
    name: 'repository.branch together with repoRef',
    manifest: deployment({
      source: 'codehost',
      repository: { owner: 'acme', name: 'agent', branch: 'main' },
      sourceRevisionConfig: { repoRef: 'dev' },
    }),
    message:
      'spec.repository.branch: Invalid value: "object": set spec.repository.branch or spec.sourceRevisionConfig.repoRef, not both',
  },
  {
    name: 'duplicate secret reference names',
    manifest: deployment({
      source: 'external_docker',
      secretReferences: [
        { name: 'A', secretName: 'db', secretKey: 'a' },
        { name: 'A', secretName: 'db', secretKey: 'b' },
      ],
    }),
    message: 'spec.secretReferences[1]: Duplicate value: map[string]interface {}{"name":"A"}',
  },
  // Immutables on update
  {
    name: 'deploymentType changed',
    before: deployment({ ...docker, sourceConfig: { deploymentType: 'dev' } }),
    manifest: update((s) => ({ ...s, sourceConfig: { deploymentType: 'prod' } })),
    message: 'spec.sourceConfig.deploymentType cannot be changed after creation (nor set or removed later)',
  },
  {
    name: 'listenerId changed',
    before: deployment({ source: 'external_docker', sourceConfig: { listenerId: uuid } }),
    manifest: update((s) => ({ ...s, sourceConfig: { listenerId: otherUuid } })),
    message:
      'spec.sourceConfig.listenerId: Invalid value: "object": spec.sourceConfig.listenerId cannot be changed after creation',
  },
  {
    name: 'repoUrl changed',
    before: deployment({
      source: 'codehost',
      sourceConfig: { integrationId: uuid, repoUrl: 'https://github.com/acme/a' },
    }),
    manifest: update((s) => ({
      ...s,
      sourceConfig: { integrationId: uuid, repoUrl: 'https://github.com/acme/b' },
    })),
    message: 'spec.sourceConfig.repoUrl cannot be changed after creation',
  },
  {
    name: 'deploymentType set after creation',
    before: deployment(docker),
    manifest: update((s) => ({ ...s, sourceConfig: { deploymentType: 'prod' } })),
    message: 'spec.sourceConfig.deploymentType cannot be changed after creation (nor set or removed later)',
  },
  {
    name: 'AgentConnection oauthTokenId changed',
    before: connection({ agentId: 'agent-1', oauthTokenId: 'tok-1' }),
    manifest: update((s) => ({ ...s, oauthTokenId: 'tok-2' })),
    message: 'spec.oauthTokenId: Invalid value: "string": spec.oauthTokenId cannot be changed after creation',
  },
  {
    name: 'OAuthToken tokenId changed',
    before: token({ tokenId: 'tok-1' }),
    manifest: update(() => ({ tokenId: 'tok-2' })),
    message: 'spec.tokenId: Invalid value: "string": spec.tokenId cannot be changed after creation',
  },
  // Unknown fields (strict field validation)
  {
    name: 'an unknown field at the top of spec',
    manifest: deployment({ ...docker, replicas: 3 }),
    message: 'strict decoding error: unknown field "spec.replicas"',
  },
  {
    name: 'a snake_case field name from the service interface',
    manifest: deployment({ ...docker, sourceConfig: { resource_spec: { min_scale: 1 } } }),
    message: 'unknown field "spec.sourceConfig.resource_spec"',
  },
  {
    name: 'a Deployment field on a Listener',
    manifest: listener({ source: 'codehost' }),
    message: 'strict decoding error: unknown field "spec.source"',
  },
  {
    name: 'an unknown OAuthToken field',
    manifest: token({ tokenId: 'tok-1', scopes: ['repo'] }),
    message: 'strict decoding error: unknown field "spec.scopes"',
  },
  // Listener, AgentConnection, OAuthToken
  {
    name: 'a Listener compute type other than k8s',
    manifest: listener({ computeType: 'vm' }),
    message: 'spec.computeType: Unsupported value: "vm": supported values: "k8s"',
  },
  {
    name: 'a Listener namespace over 63 characters',
    manifest: listener({ computeConfig: { k8sNamespaces: ['agents', long(64)] } }),
    message: 'spec.computeConfig.k8sNamespaces[1]: Too long: may not be more than 63 bytes',
  },
  {
    name: 'a Listener id that is not a UUID',
    manifest: listener({ listenerId: 'dev-cluster' }),
    message: 'spec.listenerId in body must be of type uuid: "dev-cluster"',
  },
  {
    name: 'an empty Listener computeId',
    manifest: listener({ computeId: '' }),
    message: 'spec.computeId in body should be at least 1 chars long',
  },
  {
    name: 'an AgentConnection without its token',
    manifest: connection({ agentId: 'agent-1' }),
    message: 'spec.oauthTokenId: Required value',
  },
  {
    name: 'an AgentConnection with an empty agent id',
    manifest: connection({ agentId: '', oauthTokenId: 'tok-1' }),
    message: 'spec.agentId in body should be at least 1 chars long',
  },
  {
    name: 'an OAuthToken without tokenId',
    manifest: token({ isDefault: true }),
    message: 'spec.tokenId: Required value',
  },
  {
    name: 'an OAuthToken isDefault that is not a boolean',
    manifest: token({ tokenId: 'tok-1', isDefault: 'yes' }),
    message: 'spec.isDefault in body must be of type boolean',
  },
  // apiVersion, kind, metadata
  {
    name: 'a version the group does not serve',
    manifest: { ...deployment(docker), apiVersion: 'deploy.agents.dev/v1' },
    message: 'no matches for kind "Deployment" in version "deploy.agents.dev/v1"',
  },
  {
    name: 'a kind the group does not have',
    manifest: { ...deployment(docker), kind: 'AgentDeployment' },
    message: 'no matches for kind "AgentDeployment" in version "deploy.agents.dev/v1alpha1"',
  },
  {
    name: 'a name that is not a DNS subdomain',
    manifest: deployment(docker, 'Support_Agent'),
    message: `metadata.name: Invalid value: "Support_Agent": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
  },
];

describe('the apiserver refuses invalid manifests with a clear message', () => {
  it('has distinct cases, over 40 with the 18 of crds.int.test.ts', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(cases.length + 18).toBeGreaterThan(40);
  });

  it.each(cases)('$name', async ({ before, manifest, message }) => {
    if (before) await apply(before);
    const bad = typeof manifest === 'function' ? manifest(before!) : manifest;
    await expect(apply(bad)).rejects.toThrow(message);
  });
});
