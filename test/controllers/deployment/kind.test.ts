// The status a Deployment shows of its service deployment, against the emulator over HTTP: a field that no
// longer applies leaves status instead of lingering from the deployment before; and against a real HTTP
// server that answers as the hosted service does (SKIPPED, statuses not listed, an unreadable revision).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentResource } from '../../../src/api/deployment.ts';
import { type DeploymentKind, deploymentKind } from '../../../src/controllers/deployment/kind.ts';
import { DeploymentObserver } from '../../../src/controllers/deployment/observer.ts';
import type { Via } from '../../../src/controllers/managed/kind.ts';
import { statusPatch } from '../../../src/controllers/managed/status.ts';
import { WorkspaceConnection } from '../../../src/controllers/workspace/connection.ts';
import { ownWorkspace } from '../../../src/controllers/workspace/refs.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { Deployment } from '../../../src/service/wire.ts';
import { deploymentBody, type HttpStub, json, revisionBody, startStub } from '../../service/http-stub.ts';

const kindOver = (service: ServiceClient): DeploymentKind => {
  const observer = new DeploymentObserver(service, {
    resyncMs: 60_000,
    onChange: () => {},
    liveIds: () => [],
  });
  return deploymentKind({
    observer: () => observer,
    inputs: () => ({
      secret: async () => ({ missing: 'NotFound' }),
      listener: () => undefined,
      repository: async () => undefined,
      workspaceOf: () => ownWorkspace,
    }),
    owners: () => [],
    resyncMs: 60_000,
  });
};

/** How the reconciler reaches the service for these calls: the operator's own workspace. */
const via = (service: ServiceClient): Via => ({
  workspace: new WorkspaceConnection(ownWorkspace, service, { serviceUrl: 'http://unused' }),
  service,
  signal: new AbortController().signal,
});

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
    const kind = kindOver(service);
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
        managementPolicy: 'Manage',
      },
      status: { ...before, observedGeneration: 1 },
    };
    const view = await kind.status(
      cr,
      {
        target: made,
        inputs: { desired: { create: { source_config: {} } } as never, digest: 'hmac-sha256:new' },
        looked: true,
        sent: ['create'],
      },
      via(service),
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

describe('deploymentKind.status, with what the hosted service answers', () => {
  let stub: HttpStub;
  let service: ServiceClient;
  let revisions: unknown[] = [];
  const earlier = 'aaaaaaaa-0000-4000-8000-000000000000';
  const target = { ...deploymentBody, active_revision_id: earlier } as Deployment;
  const cr: DeploymentResource = {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'agent', namespace: 'n', uid: 'u1' },
    spec: { source: 'internal_docker', deletionPolicy: 'Orphan', adopt: false, managementPolicy: 'Manage' },
  };
  const statusOf = (d: Deployment) => kindOver(service).status(cr, { target: d, looked: true }, via(service));

  beforeAll(async () => {
    stub = await startStub((_req, res) => json(res, 200, { resources: revisions, offset: revisions.length }));
    service = new ServiceClient({ baseUrl: stub.url, apiKey: 'k' });
  });
  afterAll(async () => {
    await service.close();
    await stub.close();
  });

  it('is Ready with a SKIPPED latest revision while the earlier one stays active', async () => {
    revisions = [{ ...revisionBody, status: 'SKIPPED' }];
    const view = await statusOf(target);
    expect(view.conditions.Ready).toMatchObject({ status: 'True', reason: 'Ready' });
    expect(view.observed).toMatchObject({
      serviceStatus: 'READY',
      activeRevisionId: earlier,
      latestRevision: { id: revisionBody.id, status: 'SKIPPED' },
    });
  });

  it('shows statuses the interface does not list as the service reports them', async () => {
    revisions = [{ ...revisionBody, status: 'ROLLING_OUT' }];
    const view = await statusOf({ ...target, status: 'AWAITING_FINAL_DELETE' });
    expect(view.observed).toMatchObject({
      serviceStatus: 'AWAITING_FINAL_DELETE',
      latestRevision: { status: 'ROLLING_OUT' },
    });
    expect(view.conditions.Ready.reason).toBe('UnknownServiceStatus');
    expect(view.conditions.Stalled.status).toBe('False');
  });

  it('says in Synced that the latest revision cannot be read, naming its path; never Stalled', async () => {
    const other = { ...revisionBody, id: earlier, status: 'DEPLOYED' };
    revisions = [other, { ...revisionBody, created_at: 'yesterday' }];
    const view = await statusOf(target);
    expect(view.conditions.Synced).toMatchObject({ status: 'False', reason: 'ServiceError' });
    expect(view.conditions.Synced.message).toContain('resources[1].created_at');
    expect(view.conditions.Reconciling.status).toBe('True');
    expect(view.conditions.Stalled.status).toBe('False');
    expect(view.observed.revisions).toEqual([expect.objectContaining({ id: earlier })]);
  });
});
