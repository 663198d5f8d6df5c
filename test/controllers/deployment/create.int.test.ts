// Scenario 1: every source the emulator's mode allows reaches Ready, with the revision in status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeedIds } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorProfile, emulatorState, getCr, setUp, waitFor } from './support.ts';

const cloudSpecs: Record<string, Record<string, unknown>> = {
  'codehost-ids': {
    source: 'codehost',
    sourceConfig: {
      integrationId: defaultSeedIds.installedIntegration,
      repoUrl: 'https://github.com/acme/support-agent',
      deploymentType: 'dev',
    },
    sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
  },
  'codehost-repository': {
    source: 'codehost',
    repository: { owner: 'hosted-acme', name: 'chat-agent', hosted: true },
    sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
  },
  'internal-docker': {
    source: 'internal_docker',
    sourceRevisionConfig: { imageUri: 'registry.local/agent:1' },
  },
  'internal-source': {
    source: 'internal_source',
    sourceRevisionConfig: { sourceTarballPath: 'uploads/agent.tgz' },
  },
  'internal-template': {
    source: 'internal_template',
    sourceRevisionConfig: { graphConfigPath: 'templates/react.json' },
  },
};

describe.each([
  ['cloud', cloudSpecs],
  [
    'self-hosted',
    {
      'external-docker': {
        source: 'external_docker',
        sourceRevisionConfig: { imageUri: 'registry.local/agent:1' },
        sourceConfig: { listenerId: defaultSeedIds.listener },
      },
    },
  ],
] as const)('creating deployments (%s)', (mode, specs) => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp(`create-${mode}`, { mode, stepMs: 50 }));
    // A self-hosted install of the hosted service serves the API under /api-host: the operator is given
    // that URL, prefix included, as a user would.
    if (mode === 'self-hosted' && emulatorProfile() === 'hosted') expect(emu.url).toMatch(/\/api-host$/);
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace] });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it.each(Object.keys(specs))('%s reaches Ready with its revision in status', async (name) => {
    await apply(namespace, agentDeployment(name, (specs as Record<string, Record<string, unknown>>)[name]!));
    await waitFor(namespace, name, 'condition=Ready');

    const cr = await getCr(namespace, name);
    const service = (await emulatorState(emu)).deployments.find((d) => d.name === name)!;
    expect(cr.status.deploymentId).toBe(service.id);
    expect(cr.metadata.annotations['deploy.agents.dev/deployment-id']).toBe(service.id);
    expect(cr.metadata.annotations['deploy.agents.dev/create-pending']).toBeUndefined();
    expect(cr.status.serviceStatus).toBe('READY');
    expect(cr.status.observedGeneration).toBe(cr.metadata.generation);
    expect(service.revisions).toHaveLength(1);
    expect(cr.status.latestRevision).toMatchObject({ id: service.revisions[0]!.id, status: 'DEPLOYED' });
    expect(cr.status.activeRevisionId).toBe(cr.status.latestRevision.id);
    const conditions = Object.fromEntries(
      cr.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]),
    );
    expect(conditions).toEqual({ Ready: 'True', Synced: 'True', Reconciling: 'False', Stalled: 'False' });
  });
});
