// /metrics of a running `agent-deploy operator`: controller-runtime and workqueue metrics, service
// calls by endpoint template and status code, and nothing secret in any label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/controlplane/ports.ts';
import { defaultSeedKeys } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { agentDeployment, apply, getCr, setUp, waitFor } from '../../controllers/deployment/support.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';

describe('agent-deploy operator /metrics', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  let port: number;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('metrics'));
    port = await freePort();
    operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      extraArgs: ['--health-port', String(port)],
    });
    await operator.waitForLog(/caches synced/);
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('shows reconciles, queue depth and service calls by endpoint template', async () => {
    await apply(
      namespace,
      agentDeployment('metered', {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
      }),
    );
    await waitFor(namespace, 'metered', 'condition=Ready');
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    expect(
      value(/^controller_runtime_reconcile_total\{controller="deployment",result="success"\} (\d+)$/m),
    ).toBeGreaterThan(0);
    expect(text).toMatch(/^workqueue_depth\{name="deployment"\} \d+$/m);
    expect(text).toMatch(/^workqueue_adds_total\{name="deployment"\} [1-9]\d*$/m);
    expect(
      value(
        /^agent_deploy_service_requests_total\{workspace="default",endpoint="POST \/v2\/deployments",code="201"\} (\d+)$/m,
      ),
    ).toBe(1);
    // Every endpoint label is a method and a path template: no ids.
    const endpoints = [...text.matchAll(/endpoint="([^"]*)"/g)].map((m) => m[1]);
    expect(endpoints.length).toBeGreaterThan(0);
    for (const endpoint of endpoints)
      expect(endpoint).toMatch(/^(GET|POST|PATCH|DELETE) \/v2(\/([a-z_]+|\{[a-z_]+\}))+$/);
    expect(text).toMatch(
      /^agent_deploy_service_request_duration_seconds_bucket\{le="0.005",workspace="default",endpoint="POST \/v2\/deployments"\}/m,
    );
    // Without --leader-elect the process always leads.
    expect(text).toMatch(/^agent_deploy_leader 1$/m);

    const deploymentId = (await getCr(namespace, 'metered')).status.deploymentId as string;
    expect(deploymentId).toBeTruthy();
    expect(text).not.toContain(deploymentId);
    expect(text).not.toContain(defaultSeedKeys.dev);
  });
});
