import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeedIds, defaultSeedKeys } from '../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { serviceCallMetrics } from '../../src/service/metrics.ts';
import { deploymentBody, json, listenerBody, startStub } from './http-stub.ts';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, stepMs: 0 });
});
afterAll(async () => {
  await emu.close();
});

describe('service call metrics', () => {
  it('count and time calls by endpoint template and status, with no ids or keys in labels', async () => {
    const registry = new Registry();
    const client = new ServiceClient({
      baseUrl: emu.url,
      apiKey: defaultSeedKeys.dev,
      tenantId: defaultSeedIds.tenant,
      onCall: serviceCallMetrics(registry),
      retry: { maxAttempts: 1 },
    });
    try {
      await client.listDeployments({ limit: 5 });
      await client.listDeployments({ limit: 5 });
      await expect(client.listRevisions('00000000-0000-4000-8000-00000000abcd')).rejects.toThrow();
    } finally {
      await client.close();
    }
    const text = await registry.metrics();
    expect(text).toContain(
      'agent_deploy_service_requests_total{workspace="default",endpoint="GET /v2/deployments",code="200"} 2',
    );
    expect(text).toMatch(
      /agent_deploy_service_requests_total\{workspace="default",endpoint="GET \/v2\/deployments\/\{deployment_id\}\/revisions",code="404"\} 1/,
    );
    expect(text).toContain(
      'agent_deploy_service_request_duration_seconds_count{workspace="default",endpoint="GET /v2/deployments"} 2',
    );
    for (const secret of ['00000000-0000-4000-8000-00000000abcd', defaultSeedKeys.dev, defaultSeedIds.tenant])
      expect(text).not.toContain(secret);
  });
});

describe('contract violations', () => {
  it('counts each list item left out and each unusable body, by endpoint template', async () => {
    const noId = { ...deploymentBody, id: undefined };
    const stub = await startStub((req, res) =>
      req.url.startsWith('/v2/deployments')
        ? json(res, 200, { resources: [deploymentBody, noId, noId], offset: 3 })
        : json(res, 200, { ...listenerBody, version: 7 }),
    );
    const registry = new Registry();
    const client = new ServiceClient({
      baseUrl: stub.url,
      apiKey: 'k',
      onCall: serviceCallMetrics(registry),
    });
    try {
      expect((await client.listDeployments()).resources).toHaveLength(1);
      await expect(client.getListener(listenerBody.id)).rejects.toThrow(/version/);
    } finally {
      await client.close();
      await stub.close();
    }
    const text = await registry.metrics();
    expect(text).toContain(
      'agent_deploy_service_contract_violations_total{workspace="default",endpoint="GET /v2/deployments"} 2',
    );
    expect(text).toContain(
      'agent_deploy_service_contract_violations_total{workspace="default",endpoint="GET /v2/listeners/{listener_id}"} 1',
    );
  });
});
