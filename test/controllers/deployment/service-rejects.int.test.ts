// Specs the apiserver accepts but the service refuses: each resource is Stalled with the service's own
// message, and the operator leaves it alone afterwards (no hot loop) until its spec changes.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, defaultSeedIds } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorState, getCr, setUp, waitFor, warnings } from './support.ts';

const installed = defaultSeedIds.installedIntegration;
const managed = defaultSeedIds.managedIntegration;
const acmeRepo = 'https://github.com/acme/support-agent';
const unknownId = '99999999-0000-4000-8000-000000000009';

interface Case {
  name: string;
  spec: Record<string, unknown>;
  reason: string;
  /** Text of the service's answer the Stalled message must carry. */
  message: string;
}

const cases: Case[] = [
  {
    name: 'unknown-repository',
    spec: {
      source: 'codehost',
      repository: { owner: 'acme', name: 'nowhere' },
      sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
    },
    reason: 'RepositoryNotFound',
    message: 'repository acme/nowhere',
  },
  {
    name: 'unknown-integration',
    spec: {
      source: 'codehost',
      sourceConfig: { integrationId: unknownId, repoUrl: acmeRepo },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    },
    reason: 'InvalidSpec',
    message: `integration ${unknownId}`,
  },
  {
    name: 'repo-not-in-integration',
    spec: {
      source: 'codehost',
      sourceConfig: { integrationId: installed, repoUrl: 'https://github.com/acme/not-there' },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    },
    reason: 'InvalidSpec',
    message: 'https://github.com/acme/not-there',
  },
  {
    name: 'repo-of-another-integration',
    spec: {
      source: 'codehost',
      sourceConfig: { integrationId: managed, repoUrl: acmeRepo },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    },
    reason: 'InvalidSpec',
    message: acmeRepo,
  },
  {
    name: 'codehost-without-ref',
    spec: {
      source: 'codehost',
      sourceConfig: { integrationId: installed, repoUrl: acmeRepo },
      sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
    },
    reason: 'InvalidSpec',
    // The spec path the user wrote, the service's words and its name for the field.
    message: `spec.sourceRevisionConfig.repoRef: Field required for source codehost (the service's source_revision_config.repo_ref)`,
  },
  {
    name: 'codehost-without-graph',
    spec: {
      source: 'codehost',
      sourceConfig: { integrationId: installed, repoUrl: acmeRepo },
      sourceRevisionConfig: { repoRef: 'main' },
    },
    reason: 'InvalidSpec',
    // The spec path the user wrote, the service's words and its name for the field.
    message: `spec.sourceRevisionConfig.graphConfigPath: Field required for source codehost (the service's source_revision_config.graph_config_path)`,
  },
  {
    name: 'docker-without-image',
    spec: { source: 'internal_docker' },
    reason: 'InvalidSpec',
    // The spec path the user wrote, the service's words and its name for the field.
    message: `spec.sourceRevisionConfig.imageUri: Field required for source internal_docker (the service's source_revision_config.image_uri)`,
  },
  {
    name: 'docker-with-empty-image',
    spec: { source: 'internal_docker', sourceRevisionConfig: { imageUri: '' } },
    reason: 'InvalidSpec',
    // The spec path the user wrote, the service's words and its name for the field.
    message: `spec.sourceRevisionConfig.imageUri: Field required for source internal_docker (the service's source_revision_config.image_uri)`,
  },
  {
    name: 'source-without-tarball',
    spec: { source: 'internal_source' },
    reason: 'InvalidSpec',
    // The spec path the user wrote, the service's words and its name for the field.
    message: `spec.sourceRevisionConfig.sourceTarballPath: Field required for source internal_source (the service's source_revision_config.source_tarball_path)`,
  },
  {
    name: 'template-without-graph',
    spec: { source: 'internal_template' },
    reason: 'InvalidSpec',
    // The spec path the user wrote, the service's words and its name for the field.
    message: `spec.sourceRevisionConfig.graphConfigPath: Field required for source internal_template (the service's source_revision_config.graph_config_path)`,
  },
  {
    name: 'self-hosted-source-in-cloud',
    spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'agent:1' } },
    reason: 'InvalidSpec',
    message: 'external_docker',
  },
  {
    name: 'unknown-listener',
    spec: {
      source: 'internal_docker',
      sourceConfig: { listenerId: unknownId },
      sourceRevisionConfig: { imageUri: 'agent:1' },
    },
    reason: 'InvalidSpec',
    message: unknownId,
  },
  {
    name: 'taken-by-tracing',
    spec: { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'agent:1' } },
    reason: 'AlreadyExists',
    message: 'taken-by-tracing',
  },
];

type Condition = { type: string; status: string; reason: string; message: string };

describe('service-invalid specs', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('rejects', {
      seed: { ...defaultSeed, tracing_projects: ['taken-by-tracing'] },
    }));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace] });
    await Promise.all(cases.map((c) => apply(namespace, agentDeployment(c.name, c.spec))));
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('stalls each with the service message, then makes at most one call per minute per resource', async () => {
    await Promise.all(cases.map((c) => waitFor(namespace, c.name, 'condition=Stalled')));
    for (const c of cases) {
      const cr = await getCr(namespace, c.name);
      const stalled = (cr.status.conditions as Condition[]).find((x) => x.type === 'Stalled')!;
      expect({ name: c.name, reason: stalled.reason }).toEqual({ name: c.name, reason: c.reason });
      expect(stalled.message, c.name).toContain(c.message);
      expect(cr.status.deploymentId, c.name).toBeUndefined();
      // Where people look: the operator's log says which resource, why, and in the service's words.
      expect(warnings(operator.logs, `${namespace}/${c.name}`), c.name).toContainEqual(
        expect.objectContaining({ reason: c.reason, message: expect.stringContaining(c.message) }),
      );
    }
    expect((await emulatorState(emu)).deployments).toEqual([]);

    const total = async () => Object.values((await emulatorState(emu)).calls).reduce((a, b) => a + b, 0);
    const before = await total();
    await sleep(61_000);
    expect(await total()).toBeLessThanOrEqual(before + cases.length);
  }, 150_000);
});
