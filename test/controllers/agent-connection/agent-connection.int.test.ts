// AgentConnection resources: one POST per resource (across resyncs and operator restarts), status mirrors
// the connection, an unknown token is Stalled in the service's words, an interrupted connect is not
// repeated, and the spec cannot change.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeedIds } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { setUp } from '../deployment/support.ts';
import {
  apiVersion,
  applyResource,
  callCount,
  conditionsOf,
  example,
  getResource,
  serviceState,
  stalledWith,
  waitForResource,
} from '../resources.ts';

const CONNECT = 'POST /v2/auth/agents/{agent_id}/connections';
const pending = 'deploy.agents.dev/create-pending';

describe('AgentConnection controller', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const start = () => startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '3s' });
  const connection = (name: string, agentId: string, oauthTokenId: string, annotations?: object) => ({
    apiVersion,
    kind: 'AgentConnection',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { agentId, oauthTokenId },
  });
  const connectionsOf = async (agentId: string) =>
    (await serviceState(emu)).connections.filter((c) => c.agent_id === agentId);

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('aconn'));
    operator = start();
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('connects once, mirrors the connection, and never posts again (resyncs, restart)', async () => {
    await applyResource(connection('support', 'agent-support', defaultSeedIds.githubToken), namespace);
    await waitForResource('agentconnections', 'support', 'condition=Ready', namespace);
    const [made] = await connectionsOf('agent-support');
    const cr = await getResource('agentconnections', 'support', namespace);
    expect(cr.status).toMatchObject({
      observedGeneration: 1,
      connectionId: made!.id,
      providerId: 'github',
      providerAccountLabel: 'dev@github',
      scopes: ['repo', 'read:user'],
      expiresAt: '2030-01-01T00:00:00Z',
      createdBy: defaultSeedIds.devUser,
    });
    expect(Date.parse(cr.status.createdAt)).toBeGreaterThan(0);
    expect(cr.metadata.annotations['deploy.agents.dev/connection-id']).toBe(made!.id);
    expect(cr.metadata.annotations[pending]).toBeUndefined();
    expect(conditionsOf(cr).Ready!.message).toContain(made!.id);

    await sleep(7000); // two resync periods
    await operator.kill();
    operator = start();
    await operator.waitForLog(/"controller":"agentconnection".*caches synced/);
    await sleep(4000); // and one more after the restart
    expect(await connectionsOf('agent-support')).toHaveLength(1);
    expect(await callCount(emu, CONNECT)).toBe(1);
    const after = await getResource('agentconnections', 'support', namespace);
    expect(after.status.connectionId).toBe(made!.id);
    expect(conditionsOf(after).Ready!.lastTransitionTime).toBe(conditionsOf(cr).Ready!.lastTransitionTime);
  });

  it('is Stalled with the service message for an unknown token, and makes no connection', async () => {
    await applyResource(connection('unknown', 'agent-unknown', 'no-such-token'), namespace);
    await waitForResource('agentconnections', 'unknown', stalledWith('NotFound'), namespace);
    const cr = await getResource('agentconnections', 'unknown', namespace);
    const conditions = conditionsOf(cr);
    expect(conditions.Stalled!.message).toContain('token no-such-token not found');
    expect(conditions.Ready).toMatchObject({ status: 'False', reason: 'NotFound' });
    expect(cr.metadata.annotations?.[pending]).toBeUndefined();
    expect(cr.status.connectionId).toBeUndefined();
    expect(await connectionsOf('agent-unknown')).toHaveLength(0);
  });

  it('does not repeat a connect whose outcome was never recorded, until a person says so', async () => {
    const marker = { [pending]: '2026-01-01T00:00:00Z' };
    await applyResource(
      connection('interrupted', 'agent-interrupted', defaultSeedIds.googleToken, marker),
      namespace,
    );
    await waitForResource('agentconnections', 'interrupted', stalledWith('Interrupted'), namespace);
    const message = conditionsOf(await getResource('agentconnections', 'interrupted', namespace)).Stalled!
      .message;
    expect(message).toContain('deploy.agents.dev/connection-id');
    await sleep(4000); // a resync later: still no call
    expect(await connectionsOf('agent-interrupted')).toHaveLength(0);

    await kubectl([
      'annotate',
      '-n',
      namespace,
      'agentconnections.deploy.agents.dev',
      'interrupted',
      `${pending}-`,
    ]);
    await waitForResource('agentconnections', 'interrupted', 'condition=Ready', namespace);
    expect(await connectionsOf('agent-interrupted')).toHaveLength(1);
  });

  it('connects once after a connect the service turned away (429), without calling it interrupted', async () => {
    const faults = `${emu.adminUrl}/_emulator/faults`;
    await fetch(faults, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error_rate: 1, statuses: [429], retry_after_s: 1, paths: [CONNECT] }),
    });
    try {
      await applyResource(connection('busy', 'agent-busy', defaultSeedIds.googleToken), namespace);
      // Retryable trouble: the marker stays (429 is never a refusal), but this process knows nothing was made.
      await waitForResource(
        'agentconnections',
        'busy',
        'jsonpath={.status.conditions[?(@.type=="Synced")].reason}=ServiceError',
        namespace,
      );
      const cr = await getResource('agentconnections', 'busy', namespace);
      expect(cr.metadata.annotations?.[pending]).toBeDefined();
      expect(conditionsOf(cr).Stalled!.status).toBe('False');
    } finally {
      await fetch(faults, { method: 'DELETE' });
    }
    await waitForResource('agentconnections', 'busy', 'condition=Ready', namespace, 60);
    expect(await connectionsOf('agent-busy')).toHaveLength(1);
    const cr = await getResource('agentconnections', 'busy', namespace);
    expect(cr.metadata.annotations?.[pending]).toBeUndefined();
  });

  it('examples/agent-connection.yaml becomes Ready', async () => {
    const manifest = example('agent-connection.yaml');
    await applyResource(manifest, namespace);
    await waitForResource('agentconnections', manifest.metadata.name, 'condition=Ready', namespace);
  });

  it('rejects a change of the spec at the apiserver', async () => {
    await expect(
      applyResource(connection('support', 'agent-other', defaultSeedIds.githubToken), namespace),
    ).rejects.toThrow('spec.agentId cannot be changed after creation');
    await expect(
      applyResource(connection('support', 'agent-support', 'other-token'), namespace),
    ).rejects.toThrow('spec.oauthTokenId cannot be changed after creation');
  });
});
