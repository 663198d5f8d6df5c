// The status a Deployment shows of its service deployment, against the emulator over HTTP: a field that no
// longer applies leaves status instead of lingering from the deployment before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentResource } from '../../../src/api/deployment.ts';
import { deploymentKind } from '../../../src/controllers/deployment/kind.ts';
import { DeploymentObserver } from '../../../src/controllers/deployment/observer.ts';
import { statusPatch } from '../../../src/controllers/managed/status.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';

describe('deploymentKind.status', () => {
  let emu: RunningEmulator;
  let service: ServiceClient;

  beforeAll(async () => {
    // A long step: a new deployment's first revision is still on its way, nothing is active yet.
    emu = await startEmulator({ port: 0, stepMs: 600_000 });
    service = new ServiceClient({ baseUrl: emu.url, apiKey: 'dev-key' });
  });
  afterAll(async () => {
    await service.close();
    await emu.close();
  });

  it('clears what the deployment before had when the service deployment was deleted and made again', async () => {
    const observer = new DeploymentObserver(service, {
      resyncMs: 60_000,
      onChange: () => {},
      liveIds: () => [],
    });
    const kind = deploymentKind({
      service,
      observer,
      inputs: {
        secret: async () => ({ missing: 'NotFound' }),
        listener: () => undefined,
        repository: async () => undefined,
      },
      owners: () => [],
      resyncMs: 60_000,
    });
    const made = await service.createDeployment({
      name: 'again',
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: 'agent:1' },
      secrets: [],
    });
    const before = {
      deploymentId: 'dep-old',
      serviceStatus: 'READY' as const,
      activeRevisionId: 'rev-old',
      imageVersion: 'v1',
      latestRevision: { id: 'rev-old', status: 'DEPLOYED' as const, createdAt: 't', updatedAt: 't' },
      revisions: [{ id: 'rev-old', status: 'DEPLOYED' as const, createdAt: 't', updatedAt: 't' }],
      secretsDigest: 'hmac-sha256:old',
    };
    const cr: DeploymentResource = {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: 'again', namespace: 'n', uid: 'u1' },
      spec: {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
        deletionPolicy: 'Delete',
        adopt: false,
      },
      status: { ...before, observedGeneration: 1 },
    };
    const view = await kind.status(
      cr,
      {
        target: made,
        inputs: { desired: {} as never, digest: 'hmac-sha256:new' },
        looked: true,
        sent: ['create'],
      },
      new AbortController().signal,
    );
    expect(view.observed).toMatchObject({ deploymentId: made.id, secretsDigest: 'hmac-sha256:new' });
    expect(view.observed.activeRevisionId).toBeUndefined();
    expect(view.observed).not.toHaveProperty('imageVersion');
    expect((view.observed.latestRevision as { id: string }).id).toBe(made.latest_revision_id);
    expect(JSON.stringify(view.observed)).not.toContain('rev-old');
    // The write removes what no longer applies.
    expect(statusPatch(before, view.observed)).toMatchObject({ activeRevisionId: null, imageVersion: null });
    expect(view.conditions.Ready.status).toBe('False');
  });
});
