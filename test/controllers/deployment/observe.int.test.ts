// spec.managementPolicy: Observe. An observed resource mirrors an existing service deployment into status
// (revisions and conditions too) and never writes to the service: told by the emulator's call counts
// across resyncs, drift made on the service and a rotated Secret. A missing deployment is NotFound and
// looked up again at each resync, not in a loop. Switching Manage → Observe stops writes at once (and
// drops the finalizer); switching Observe → Manage takes the deployment over without spec.adopt.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { example } from '../resources.ts';
import {
  agentDeployment,
  apply,
  emulatorState,
  eventsOf,
  getCr,
  onService,
  setUp,
  waitFor,
} from './support.ts';

type Condition = { type: string; status: string; reason: string; message: string };
const conditions = (cr: { status: { conditions: Condition[] } }) =>
  Object.fromEntries(cr.status.conditions.map((c) => [c.type, c]));
const spec = (extra: Record<string, unknown> = {}) => ({
  source: 'internal_docker',
  sourceRevisionConfig: { imageUri: 'agent:1' },
  ...extra,
});
const observe = (extra: Record<string, unknown> = {}) => spec({ managementPolicy: 'Observe', ...extra });
const syncedReason = (reason: string) =>
  `jsonpath={.status.conditions[?(@.type=="Synced")].reason}=${reason}`;
const resync = 2000;

describe('Deployment with spec.managementPolicy: Observe', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  /** Every call that may change something on the service (a log query is a POST that only reads). */
  const writes = async () =>
    Object.entries((await emulatorState(emu)).calls)
      .filter(([endpoint]) => /^(POST|PUT|PATCH|DELETE) /.test(endpoint) && !endpoint.endsWith('_logs'))
      .reduce((sum, [, n]) => sum + n, 0);
  const calls = async (endpoint: string) => (await emulatorState(emu)).calls[endpoint] ?? 0;
  /** What a person does on the service directly (its UI or CLI): the test's own writes, counted. */
  const service = (method: string, path: string, body: object) =>
    onService<{ id: string; latest_revision_id: string }>(emu, method, path, body);
  const createOnService = (name: string, image = 'other:1') =>
    service('POST', '/v2/deployments', {
      name,
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: image },
      secrets: [{ name: 'TOKEN', value: 'service-side' }],
    });
  const serviceDeployment = async (name: string) =>
    (await emulatorState(emu)).deployments.find((d) => d.name === name) as
      | { id: string; source_revision_config: { image_uri: string } }
      | undefined;
  const secret = (name: string, value: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    stringData: { token: value },
  });

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('observe'));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: `${resync / 1000}s` });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('mirrors an existing deployment, and writes nothing across resyncs, drift and a rotated Secret', async () => {
    const existing = await createOnService('watched');
    const baseline = await writes();
    // Its Secret does not exist: an observed resource reads no inputs, so that is no problem.
    await apply(
      namespace,
      agentDeployment(
        'watched',
        observe({
          deletionPolicy: 'Delete',
          secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'watched-token', key: 'token' } } }],
        }),
      ),
    );
    await waitFor(namespace, 'watched', syncedReason('Observing'));
    await waitFor(namespace, 'watched', 'condition=Ready');
    let cr = await getCr(namespace, 'watched');
    expect(cr.status).toMatchObject({
      deploymentId: existing.id,
      serviceStatus: 'READY',
      latestRevision: { id: existing.latest_revision_id, status: 'DEPLOYED' },
      observedGeneration: 1,
    });
    expect(cr.status.revisions.map((r: { id: string }) => r.id)).toEqual([existing.latest_revision_id]);
    const byType = conditions(cr);
    expect(byType.Synced).toMatchObject({ status: 'True', reason: 'Observing' });
    expect(byType.Synced!.message).toContain(existing.id);
    expect(byType.Ready).toMatchObject({ status: 'True', reason: 'Ready' });
    expect(byType.Reconciling).toMatchObject({ status: 'False' });
    expect(byType.Stalled).toMatchObject({ status: 'False' });
    // No finalizer (deletionPolicy Delete notwithstanding), no create-pending marker, no binding annotation.
    expect(cr.metadata.finalizers).toBeUndefined();
    expect(
      Object.keys(cr.metadata.annotations ?? {}).filter((a) => a.startsWith('deploy.agents.dev/')),
    ).toEqual([]);

    // Resyncs: reads go on, writes do not.
    const reads = await calls('GET /v2/deployments');
    await sleep(3 * resync);
    expect(await calls('GET /v2/deployments')).toBeGreaterThan(reads);
    expect(await writes()).toBe(baseline);

    // Drift on the service: a new revision with another image is mirrored, never corrected.
    const drifted = await service('PATCH', `/v2/deployments/${existing.id}`, {
      source_revision_config: { image_uri: 'drift:2' },
    });
    expect(drifted.latest_revision_id).not.toBe(existing.latest_revision_id);
    await waitFor(namespace, 'watched', `jsonpath={.status.latestRevision.id}=${drifted.latest_revision_id}`);
    await waitFor(namespace, 'watched', 'condition=Ready');
    cr = await getCr(namespace, 'watched');
    expect(cr.status.revisions.map((r: { id: string }) => r.id)).toEqual([
      drifted.latest_revision_id,
      existing.latest_revision_id,
    ]);
    expect((await serviceDeployment('watched'))?.source_revision_config.image_uri).toBe('drift:2');

    // The Secret appears, then rotates: the resource is woken, and still nothing is sent.
    await apply(namespace, secret('watched-token', 'first'));
    await apply(namespace, secret('watched-token', 'rotated'));
    await sleep(2 * resync);
    expect(await writes()).toBe(baseline + 1); // the drift PATCH above, and nothing else
    expect(conditions(await getCr(namespace, 'watched')).Synced).toMatchObject({ reason: 'Observing' });

    // Deleting the resource leaves the deployment on the service.
    await kubectl(['delete', '-n', namespace, 'deployments.deploy.agents.dev', 'watched', '--timeout=30s']);
    expect(await serviceDeployment('watched')).toBeDefined();
    expect(await writes()).toBe(baseline + 1);
  });

  it('examples/observe/internal-docker.yaml mirrors the deployment it names', async () => {
    const existing = await createOnService('internal-docker');
    const manifest = example('observe/internal-docker.yaml');
    await apply(namespace, manifest);
    await waitFor(namespace, manifest.metadata.name, syncedReason('Observing'));
    await waitFor(namespace, manifest.metadata.name, 'condition=Ready');
    expect((await getCr(namespace, manifest.metadata.name)).status.deploymentId).toBe(existing.id);
  });

  it('mirrors a failed build as Stalled (what kstatus and Argo CD read), still writing nothing', async () => {
    const failed = await createOnService('broken', 'agent:fail-build');
    const baseline = await writes();
    await apply(namespace, agentDeployment('broken', observe()));
    await waitFor(namespace, 'broken', 'condition=Stalled');
    const cr = await getCr(namespace, 'broken');
    expect(cr.status.latestRevision).toMatchObject({ id: failed.latest_revision_id, status: 'BUILD_FAILED' });
    const byType = conditions(cr);
    expect(byType.Ready).toMatchObject({ status: 'False', reason: 'BuildFailed' });
    expect(byType.Stalled).toMatchObject({ status: 'True', reason: 'BuildFailed' });
    expect(byType.Synced).toMatchObject({ status: 'True', reason: 'Observing' });
    await sleep(resync);
    expect(await writes()).toBe(baseline);
  });

  it('says NotFound for a deployment the service lacks, looks again at each resync (no loop), and picks it up', async () => {
    const baseline = await writes();
    await apply(namespace, agentDeployment('ghost', observe()));
    await waitFor(namespace, 'ghost', syncedReason('NotFound'));
    const byType = conditions(await getCr(namespace, 'ghost'));
    expect(byType.Synced).toMatchObject({ status: 'False', reason: 'NotFound' });
    expect(byType.Synced!.message).toContain('spec.managementPolicy: Observe');
    expect(byType.Ready).toMatchObject({ status: 'False', reason: 'NotFound' });
    expect(byType.Stalled).toMatchObject({ status: 'False' });
    // One name lookup per resync, give or take the jitter: not a hot loop.
    const lookups = await calls('GET /v2/deployments');
    await sleep(3 * resync);
    const made = (await calls('GET /v2/deployments')) - lookups;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(12);
    expect(await writes()).toBe(baseline);
    expect((await getCr(namespace, 'ghost')).metadata.annotations?.['deploy.agents.dev/create-pending']).toBe(
      undefined,
    );

    const appeared = await createOnService('ghost');
    await waitFor(namespace, 'ghost', syncedReason('Observing'), 20);
    await waitFor(namespace, 'ghost', 'condition=Ready');
    expect((await getCr(namespace, 'ghost')).status.deploymentId).toBe(appeared.id);
    expect(await writes()).toBe(baseline + 1); // the create above
  });

  it('stops writing at once when switched from Manage to Observe, and drops its finalizer', async () => {
    await apply(namespace, agentDeployment('switched', spec({ deletionPolicy: 'Delete' })));
    await waitFor(namespace, 'switched', 'condition=Ready');
    expect((await getCr(namespace, 'switched')).metadata.finalizers).toEqual(['deploy.agents.dev/finalizer']);
    const baseline = await writes();

    // The switch and a change the service would otherwise be sent, in one apply.
    await apply(
      namespace,
      agentDeployment(
        'switched',
        observe({ deletionPolicy: 'Delete', sourceRevisionConfig: { imageUri: 'agent:2' } }),
      ),
    );
    await waitFor(namespace, 'switched', syncedReason('Observing'));
    await expect.poll(async () => (await getCr(namespace, 'switched')).metadata.finalizers).toBeUndefined();
    await sleep(2 * resync);
    expect(await writes()).toBe(baseline);
    expect((await serviceDeployment('switched'))?.source_revision_config.image_uri).toBe('agent:1');
    const cr = await getCr(namespace, 'switched');
    expect(cr.status.observedGeneration).toBe(2);
    expect(conditions(cr).Ready).toMatchObject({ status: 'True' });

    await kubectl(['delete', '-n', namespace, 'deployments.deploy.agents.dev', 'switched', '--timeout=30s']);
    expect(await serviceDeployment('switched')).toBeDefined();
    expect(await writes()).toBe(baseline);
  });

  it('takes the deployment over without spec.adopt when switched from Observe to Manage', async () => {
    const existing = await createOnService('adoptee', 'other:1');
    await apply(namespace, agentDeployment('adoptee', observe()));
    await waitFor(namespace, 'adoptee', syncedReason('Observing'));
    const patches = await calls('PATCH /v2/deployments/{deployment_id}');
    const posts = await calls('POST /v2/deployments');

    await apply(namespace, agentDeployment('adoptee', spec()));
    await waitFor(namespace, 'adoptee', syncedReason('Synced'));
    await waitFor(namespace, 'adoptee', 'condition=Ready');
    const cr = await getCr(namespace, 'adoptee');
    expect(cr.metadata.annotations?.['deploy.agents.dev/deployment-id']).toBe(existing.id);
    expect(cr.status.deploymentId).toBe(existing.id);
    expect(await calls('POST /v2/deployments')).toBe(posts);
    expect(await calls('PATCH /v2/deployments/{deployment_id}')).toBe(patches + 1);
    expect((await serviceDeployment('adoptee'))?.source_revision_config.image_uri).toBe('agent:1');
    const adopted = await eventsOf(namespace, 'adoptee', 'reason=Adopted');
    expect(adopted.map((e) => e.message)).toEqual([
      expect.stringContaining('spec.managementPolicy: Manage (it was Observe)'),
    ]);
  });
});
