// Scenarios 2, 3 and 9: spec changes become exactly one PATCH, failures stall and recover, and a
// change made on the service behind the operator's back is reverted.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import {
  agentDeployment,
  apply,
  emulatorState,
  eventsOf,
  getCr,
  setUp,
  waitFor,
  warnings as warnLines,
} from './support.ts';

const PATCH = 'PATCH /v2/deployments/{deployment_id}';
const conditionsOf = (cr: { status: { conditions: { type: string; status: string; reason: string }[] } }) =>
  Object.fromEntries(cr.status.conditions.map((c) => [c.type, `${c.status}/${c.reason}`]));

describe('Deployment lifecycle', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('lifecycle', { stepMs: 50 }));
    // A short resync, so that drift on the service is seen within the test.
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '3s' });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  const docker = (image: string, extra: Record<string, unknown> = {}) => ({
    source: 'internal_docker',
    sourceRevisionConfig: { imageUri: image },
    ...extra,
  });

  it('turns a revision change into exactly one PATCH and a new revision, then Ready again', async () => {
    await apply(namespace, agentDeployment('rev', docker('agent:1')));
    await waitFor(namespace, 'rev', 'condition=Ready');
    const before = await emulatorState(emu);
    const first = (await getCr(namespace, 'rev')).status.latestRevision.id;

    await apply(namespace, agentDeployment('rev', docker('agent:2')));
    await waitFor(namespace, 'rev', 'jsonpath={.status.observedGeneration}=2');
    await waitFor(namespace, 'rev', 'condition=Ready');

    const after = await emulatorState(emu);
    expect((after.calls[PATCH] ?? 0) - (before.calls[PATCH] ?? 0)).toBe(1);
    const service = after.deployments.find((d) => d.name === 'rev')!;
    expect(service.revisions).toHaveLength(2);
    const cr = await getCr(namespace, 'rev');
    expect(cr.status.latestRevision.id).not.toBe(first);
    expect(cr.status.latestRevision).toMatchObject({
      id: service.revisions.find((r) => r.id !== first)!.id,
      status: 'DEPLOYED',
    });
    expect(cr.status.revisions.map((r: { id: string }) => r.id)).toEqual([
      cr.status.latestRevision.id,
      first,
    ]);
  });

  it('patches a sourceConfig-only change without a new revision', async () => {
    await apply(namespace, agentDeployment('cfg', docker('agent:1')));
    await waitFor(namespace, 'cfg', 'condition=Ready');
    const before = await emulatorState(emu);

    await apply(
      namespace,
      agentDeployment(
        'cfg',
        docker('agent:1', { sourceConfig: { resourceSpec: { minScale: 2, cpu: 0.5 } } }),
      ),
    );
    await waitFor(namespace, 'cfg', 'jsonpath={.status.observedGeneration}=2');

    const after = await emulatorState(emu);
    expect((after.calls[PATCH] ?? 0) - (before.calls[PATCH] ?? 0)).toBe(1);
    const service = after.deployments.find((d) => d.name === 'cfg')! as unknown as {
      revisions: unknown[];
      source_config: { resource_spec: Record<string, unknown> };
    };
    expect(service.revisions).toHaveLength(1);
    expect(service.source_config.resource_spec).toMatchObject({ min_scale: 2, cpu: 0.5 });
    await waitFor(namespace, 'cfg', 'condition=Ready');
  });

  it('stalls on a failing build with reason BuildFailed, and recovers when the spec is fixed', async () => {
    await apply(namespace, agentDeployment('broken', docker('agent:fail-build')));
    await waitFor(namespace, 'broken', 'condition=Stalled');
    let cr = await getCr(namespace, 'broken');
    expect(conditionsOf(cr)).toMatchObject({
      Ready: 'False/BuildFailed',
      Stalled: 'True/BuildFailed',
      Reconciling: 'False/Idle',
    });
    expect(cr.status.latestRevision.status).toBe('BUILD_FAILED');
    const warnings = async () => (await eventsOf(namespace, 'broken', 'type=Warning')).map((e) => e.reason);
    await vi.waitFor(async () => expect(await warnings()).not.toEqual([]), { timeout: 5_000 });
    // One failure, one Warning: not a RevisionFailed beside the Stalled one.
    expect(await warnings()).toEqual(['BuildFailed']);
    expect(warnLines(operator.logs, `${namespace}/broken`)).toContainEqual(
      expect.objectContaining({
        reason: 'BuildFailed',
        message: expect.stringContaining('failed at "pip install -r requirements.txt"'),
      }),
    );

    await apply(namespace, agentDeployment('broken', docker('agent:fixed')));
    await waitFor(namespace, 'broken', 'condition=Ready');
    cr = await getCr(namespace, 'broken');
    expect(conditionsOf(cr)).toMatchObject({ Ready: 'True/Ready', Stalled: 'False/Progressing' });
  });

  it('reverts a change made on the service behind its back', async () => {
    await apply(
      namespace,
      agentDeployment('drift', docker('agent:1', { sourceConfig: { buildCommand: 'make' } })),
    );
    await waitFor(namespace, 'drift', 'condition=Ready');
    const { deploymentId } = (await getCr(namespace, 'drift')).status;

    const res = await fetch(`${emu.url}/v2/deployments/${deploymentId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-api-key': 'dev-key-2' },
      body: JSON.stringify({
        source_config: { build_command: 'make all' },
        source_revision_config: { image_uri: 'agent:hacked' },
      }),
    });
    expect(res.status).toBe(200);

    await expect
      .poll(
        async () => {
          const d = (await emulatorState(emu)).deployments.find((x) => x.name === 'drift') as unknown as {
            source_config: { build_command: string };
            source_revision_config: { image_uri: string };
          };
          return [d.source_config.build_command, d.source_revision_config.image_uri];
        },
        { timeout: 20_000, interval: 500 },
      )
      .toEqual(['make', 'agent:1']);
    await waitFor(namespace, 'drift', 'condition=Ready');
  });
});
