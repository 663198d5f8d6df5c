// The operator started with a wrong key in --api-key-file: resources say Unauthorized (never Stalled,
// never a spec problem), the service sees a few probes rather than every resource retrying, and once the
// file is swapped the way the kubelet updates a mounted Secret, everything becomes Ready without a
// restart. Both keys are canaries: neither may appear in a resource, an Event or a log line.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations } from '../../src/api/constants.ts';
import { defaultSeed, defaultSeedIds } from '../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../src/emulator/server.ts';
import { kubectl } from '../support/kube.ts';
import { type OperatorProcess, startOperator } from '../support/operator.ts';
import { secretVolume } from '../support/secret-volume.ts';
import { agentDeployment, apply, getCr, setUp, waitFor } from './deployment/support.ts';
import { apiVersion, applyResource, conditionsOf, getResource, waitForResource } from './resources.ts';

const wrongKey = `canary-wrong-${randomBytes(12).toString('hex')}`;
const rightKey = `canary-right-${randomBytes(12).toString('hex')}`;
const unauthorized = 'jsonpath={.status.conditions[?(@.type=="Synced")].reason}=Unauthorized';
const docker = { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'agent:1' } };

describe('a rejected API key', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  let exitedEarly = false;
  const volume = secretVolume(wrongKey);
  const listenerName = () => `${namespace}-listener`;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('unauthorized', {
      seed: {
        ...defaultSeed,
        api_keys: [
          ...defaultSeed.api_keys,
          {
            key: rightKey,
            tenant_id: defaultSeedIds.tenant,
            user_id: 'operator',
            can_manage_listeners: true,
          },
        ],
      },
    }));
    // No key in the environment: the file is the only source.
    operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      apiKey: '',
      extraArgs: ['--api-key-file', volume.path],
    });
    void operator.exited.then(() => {
      exitedEarly = true;
    });
  });
  afterAll(async () => {
    await operator.kill();
    await kubectl(['delete', 'listeners.deploy.agents.dev', listenerName(), '--ignore-not-found']);
    await emu.close();
  });

  const state = async () =>
    (await (await fetch(`${emu.adminUrl}/_emulator/state`)).json()) as {
      calls: Record<string, number>;
      responses: Record<string, number>;
    };

  it('is Unauthorized everywhere, probed not retried, and recovers from a swapped key file', async () => {
    await apply(namespace, agentDeployment('held', docker));
    await applyResource({
      apiVersion,
      kind: 'Listener',
      metadata: { name: listenerName() },
      spec: { listenerId: defaultSeedIds.listener },
    });
    // The connection comes once the service has rejected the key: a connect sent before that is answered
    // 401 and keeps its marker (it made nothing, and this process knows it), which is not what this shows.
    await waitFor(namespace, 'held', unauthorized);
    await applyResource(
      {
        apiVersion,
        kind: 'AgentConnection',
        metadata: { name: 'held-connection' },
        spec: { agentId: 'agent-held', oauthTokenId: defaultSeedIds.githubToken },
      },
      namespace,
    );
    await waitFor(namespace, 'held', unauthorized);
    await waitForResource('listeners', listenerName(), unauthorized);
    await waitForResource('agentconnections', 'held-connection', unauthorized, namespace);

    const seen: string[] = []; // every rendering searched for the canaries at the end
    const held = await getCr(namespace, 'held');
    const listener = await getResource('listeners', listenerName());
    seen.push(JSON.stringify(held), JSON.stringify(listener));
    for (const cr of [held, listener]) {
      const c = conditionsOf(cr);
      expect([c.Synced!.status, c.Synced!.reason]).toEqual(['False', 'Unauthorized']);
      expect(c.Stalled!.status).not.toBe('True');
      expect(c.Synced!.message).toContain(`from file ${volume.path}`);
    }
    // The create was held back, not refused: its marker stays, so no second deployment can follow.
    expect(held.metadata.annotations?.[annotations.createPending]).toBeDefined();
    // A connect is not even started (its marker would say "interrupted"), and nothing loops on writes.
    const connection = await getResource('agentconnections', 'held-connection', namespace);
    seen.push(JSON.stringify(connection));
    expect(conditionsOf(connection).Stalled!.status).not.toBe('True');
    expect(connection.metadata.annotations?.[annotations.createPending]).toBeUndefined();

    // While refused, new resources are reconciled (they say Unauthorized) without reaching the service:
    // only the operator's probes do, on a doubling wait. Each of 10 resources calling for itself would
    // make 10 calls at least.
    await fetch(`${emu.adminUrl}/_emulator/calls/reset`, { method: 'POST' });
    const names = Array.from({ length: 10 }, (_, i) => `held-${i}`);
    const windowStart = performance.now();
    await Promise.all(names.map((name) => apply(namespace, agentDeployment(name, docker))));
    await Promise.all(names.map((name) => waitFor(namespace, name, unauthorized)));
    await sleep(Math.max(0, 15_000 - (performance.now() - windowStart)));
    const during = await state();
    const rejected = during.responses['401'] ?? 0;
    const windowS = (performance.now() - windowStart) / 1000;
    // Probes go 1, 3, 7, 15 and 31 s after the first rejection: at most 4 in any 15 s.
    expect(rejected).toBeLessThanOrEqual(4);
    expect(Object.values(during.calls).reduce((a, b) => a + b, 0)).toBe(rejected); // only probes came
    expect(during.calls['POST /v2/deployments'] ?? 0).toBe(0);
    const connectionAfter = await getResource('agentconnections', 'held-connection', namespace);
    expect(connectionAfter.metadata.resourceVersion).toBe(connection.metadata.resourceVersion);

    // The kubelet's update of a mounted Secret: a new file behind an atomically repointed `..data`.
    const swappedAt = performance.now();
    volume.swap(rightKey);
    await Promise.all([
      ...['held', ...names].map((name) => waitFor(namespace, name, 'condition=Ready', 60)),
      waitForResource('listeners', listenerName(), 'condition=Ready', undefined, 60),
      waitForResource('agentconnections', 'held-connection', 'condition=Ready', namespace, 60),
    ]);
    const recoveryS = (performance.now() - swappedAt) / 1000;
    expect(recoveryS).toBeLessThan(60);
    expect(exitedEarly).toBe(false); // the same process: no restart
    await operator.waitForLog(/the service accepts the API key; calls resume/);
    const after = await state();
    expect(after.calls['POST /v2/deployments']).toBe(11); // one create each, the held marker included
    expect(after.calls['POST /v2/auth/agents/{agent_id}/connections']).toBe(1);
    console.info(
      `unauthorized: ${rejected} rejected calls in a ${windowS.toFixed(1)} s window with 13 resources; ` +
        `Ready ${recoveryS.toFixed(1)} s after the key file was swapped`,
    );

    const events = (await kubectl(['get', 'events', '-A', '-o', 'json'])).stdout;
    const resources = (
      await kubectl([
        'get',
        'deployments.deploy.agents.dev,listeners.deploy.agents.dev,agentconnections.deploy.agents.dev,oauthtokens.deploy.agents.dev',
        '-A',
        '-o',
        'json',
      ])
    ).stdout;
    const logs = operator.logs.join('\n');
    // The search would find them: the key source is logged, the resources are there.
    expect(logs).toContain(volume.path);
    expect(resources).toContain('"name": "held-9"');
    for (const [where, text] of Object.entries({ logs, events, resources, seen: seen.join('\n') }))
      for (const key of [wrongKey, rightKey])
        expect(text.includes(key), `${where} holds the key`).toBe(false);
  }, 180_000);
});
