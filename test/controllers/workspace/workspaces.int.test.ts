// Several workspaces in one cluster, against the real control plane and the emulator's two tenants:
// the same name in two workspaces is two service deployments, a key rotated in one workspace leaves the
// other alone, a workspace in use cannot go, a resource cannot move, and idle cost is counted per workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/controlplane/ports.ts';
import { defaultSeedIds, defaultSeedKeys } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { createTestNamespace, kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import {
  agentDeployment,
  apply,
  emulatorState,
  eventsOf,
  getCr,
  setUp,
  waitFor,
} from '../deployment/support.ts';

const LIST = 'GET /v2/deployments';
const PATCH = 'PATCH /v2/deployments/{deployment_id}';
const tenantA = defaultSeedIds.tenant;
const tenantB = defaultSeedIds.otherTenant;
const spec = (extra: Record<string, unknown> = {}) => ({
  source: 'internal_docker',
  sourceRevisionConfig: { imageUri: 'agent:1' },
  ...extra,
});
type Condition = { type: string; status: string; reason: string; message: string };
const condition = (obj: { status?: { conditions?: Condition[] } }, type: string) =>
  obj.status?.conditions?.find((c) => c.type === type);

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (namespace: string, name: string, key: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
  data: { 'api-key': b64(key) },
});

async function get(kind: string, name: string, namespace?: string) {
  const { stdout } = await kubectl([
    'get',
    kind,
    name,
    ...(namespace ? ['-n', namespace] : []),
    '-o',
    'json',
  ]);
  return JSON.parse(stdout);
}

interface TenantState {
  deployments: {
    id: string;
    name: string;
    tenant_id: string;
    source_revision_config: { image_uri?: string };
  }[];
  calls_by_tenant: Record<string, Record<string, number>>;
}
const state = async (emu: RunningEmulator) => (await emulatorState(emu)) as unknown as TenantState;
const tenantCalls = async (emu: RunningEmulator, tenant: string, endpoint: string) =>
  (await state(emu)).calls_by_tenant[tenant]?.[endpoint] ?? 0;

describe('Workspaces', () => {
  let namespace: string;
  let keys: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  let cluster: string;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('ws'));
    // Where ClusterWorkspace Secrets live: the operator's own namespace.
    keys = await createTestNamespace('ws-system');
    cluster = `shared-${namespace}`;
    operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      resync: '2s',
      healthPort: await freePort(),
      extraArgs: ['--cluster-resource-namespace', keys],
    });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
    await kubectl([
      'delete',
      'clusterworkspaces.deploy.agents.dev',
      cluster,
      '--ignore-not-found',
      '--wait=false',
    ]);
  });

  it('makes the same name in two workspaces two service deployments, one per tenant', async () => {
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          secret(namespace, 'team-b-key', defaultSeedKeys.otherTenant),
          {
            apiVersion: 'deploy.agents.dev/v1alpha1',
            kind: 'Workspace',
            metadata: { name: 'team-b', namespace },
            spec: { apiKeySecretRef: { name: 'team-b-key', key: 'api-key' } },
          },
          // A ClusterWorkspace of tenant A with the second key of that tenant, its Secret defaulted to the
          // operator's namespace.
          secret(keys, 'shared-key', defaultSeedKeys.dev2),
          {
            apiVersion: 'deploy.agents.dev/v1alpha1',
            kind: 'ClusterWorkspace',
            metadata: { name: cluster },
            spec: { apiKeySecretRef: { name: 'shared-key', key: 'api-key' } },
          },
        ],
      }),
    });
    await apply(namespace, agentDeployment('web-a', spec({ name: 'web' })));
    await apply(
      namespace,
      agentDeployment('web-b', spec({ name: 'web', workspaceRef: { kind: 'Workspace', name: 'team-b' } })),
    );
    await apply(
      namespace,
      agentDeployment('other', spec({ workspaceRef: { kind: 'ClusterWorkspace', name: cluster } })),
    );
    await waitFor(namespace, 'web-a', 'condition=Ready');
    await waitFor(namespace, 'web-b', 'condition=Ready');
    await waitFor(namespace, 'other', 'condition=Ready');

    const webs = (await state(emu)).deployments.filter((d) => d.name === 'web');
    expect(webs.map((d) => d.tenant_id).sort()).toEqual([tenantA, tenantB].sort());
    const [a, b] = [await getCr(namespace, 'web-a'), await getCr(namespace, 'web-b')];
    expect(a.status.deploymentId).toBe(webs.find((d) => d.tenant_id === tenantA)!.id);
    expect(b.status.deploymentId).toBe(webs.find((d) => d.tenant_id === tenantB)!.id);
    expect((await state(emu)).deployments.find((d) => d.name === 'other')!.tenant_id).toBe(tenantA);

    for (const [kind, name, ns] of [
      ['workspaces.deploy.agents.dev', 'team-b', namespace],
      ['clusterworkspaces.deploy.agents.dev', cluster, undefined],
    ] as const) {
      const ws = await get(kind, name, ns);
      expect(condition(ws, 'Ready')).toMatchObject({ status: 'True', reason: 'Ready' });
      expect(ws.status.serviceUrl).toBe(emu.url);
      expect(ws.metadata.finalizers).toContain('deploy.agents.dev/finalizer');
    }
    // Metrics name the workspace (never a key or tenant).
    const metrics = await operator.metrics();
    expect(metrics).toMatch(
      new RegExp(
        `agent_deploy_service_requests_total\\{workspace="Workspace/${namespace}/team-b",endpoint="POST /v2/deployments",code="201"\\} 1`,
      ),
    );
    expect(metrics).not.toContain(defaultSeedKeys.otherTenant);
  });

  it('refuses a namespaced Workspace naming a Secret of another namespace', async () => {
    await expect(
      kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'deploy.agents.dev/v1alpha1',
          kind: 'Workspace',
          metadata: { name: 'elsewhere', namespace },
          spec: { apiKeySecretRef: { name: 'shared-key', key: 'api-key', namespace: keys } },
        }),
      }),
    ).rejects.toThrow(/unknown field "spec.apiKeySecretRef.namespace"/);
  });

  it('refuses to move a resource between workspaces', async () => {
    const move = (patch: object) =>
      kubectl([
        'patch',
        '-n',
        namespace,
        'deployments.deploy.agents.dev',
        'web-b',
        '--type=merge',
        '-p',
        JSON.stringify(patch),
      ]);
    await expect(
      move({ spec: { workspaceRef: { kind: 'ClusterWorkspace', name: cluster } } }),
    ).rejects.toThrow(/spec.workspaceRef cannot be changed after creation/);
    await expect(move({ spec: { workspaceRef: null } })).rejects.toThrow(
      /spec.workspaceRef cannot be changed/,
    );
  });

  it('reads each workspace ⌈ids/100⌉ times per resync with its own key, and nothing more while idle', async () => {
    const refreshes = async (workspace: string) =>
      Number(
        new RegExp(`^agent_deploy_observer_refreshes_total\\{workspace="${workspace}"\\} (\\d+)`, 'm').exec(
          await operator.metrics(),
        )?.[1] ?? 0,
      );
    const b = `Workspace/${namespace}/team-b`;
    const r0 = await refreshes(b);
    const [a0, b0] = [await tenantCalls(emu, tenantA, LIST), await tenantCalls(emu, tenantB, LIST)];
    const [wa0, wb0] = [await tenantCalls(emu, tenantA, PATCH), await tenantCalls(emu, tenantB, PATCH)];
    await expect.poll(() => refreshes(b), { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(r0 + 3);
    const periods = (await refreshes(b)) - r0;
    const [a1, b1] = [await tenantCalls(emu, tenantA, LIST), await tenantCalls(emu, tenantB, LIST)];
    // Tenant B: one batch per refresh of its one live id. Tenant A holds two workspaces (the operator's
    // own and the ClusterWorkspace): one batch each per refresh.
    expect(b1 - b0).toBeGreaterThanOrEqual(periods - 1);
    expect(b1 - b0).toBeLessThanOrEqual(periods + 1);
    expect(a1 - a0).toBeGreaterThanOrEqual(2 * (periods - 1));
    expect(a1 - a0).toBeLessThanOrEqual(2 * (periods + 1));
    // Idle: no writes in either tenant, and no further key checks (GET /v2/deployments?limit=1 counts as a
    // list call above, so the bounds above would have caught one per resync).
    expect(await tenantCalls(emu, tenantA, PATCH)).toBe(wa0);
    expect(await tenantCalls(emu, tenantB, PATCH)).toBe(wb0);
  }, 60_000);

  it('stops only the workspace whose key is refused, and resumes it when its Secret holds a good key', async () => {
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(secret(namespace, 'team-b-key', 'revoked-key')),
    });
    await expect
      .poll(async () => condition(await get('workspaces.deploy.agents.dev', 'team-b', namespace), 'Ready'), {
        timeout: 20_000,
      })
      .toMatchObject({ status: 'False', reason: 'Unauthorized' });
    const ws = await get('workspaces.deploy.agents.dev', 'team-b', namespace);
    expect(JSON.stringify(ws.status)).not.toContain('revoked-key');

    // A change to a resource of the refused workspace makes no call and says why.
    const b0 = Object.values((await state(emu)).calls_by_tenant[tenantB] ?? {}).reduce((x, y) => x + y, 0);
    await apply(
      namespace,
      agentDeployment(
        'web-b',
        spec({
          name: 'web',
          workspaceRef: { kind: 'Workspace', name: 'team-b' },
          sourceRevisionConfig: { imageUri: 'agent:2' },
        }),
      ),
    );
    await expect
      .poll(async () => condition(await getCr(namespace, 'web-b'), 'Synced'), { timeout: 20_000 })
      .toMatchObject({ status: 'False', reason: 'WorkspaceNotReady' });
    expect(condition(await getCr(namespace, 'web-b'), 'Synced')!.message).toMatch(
      new RegExp(
        `Workspace ${namespace}/team-b: the service rejected the API key in key api-key of Secret ${namespace}/team-b-key`,
      ),
    );
    // Meanwhile the other workspaces work: a change in tenant A goes through.
    await apply(
      namespace,
      agentDeployment('web-a', spec({ name: 'web', sourceRevisionConfig: { imageUri: 'agent:2' } })),
    );
    await expect
      .poll(
        async () =>
          (await state(emu)).deployments.find((d) => d.name === 'web' && d.tenant_id === tenantA)
            ?.source_revision_config.image_uri,
        { timeout: 20_000 },
      )
      .toBe('agent:2');
    const b1 = Object.values((await state(emu)).calls_by_tenant[tenantB] ?? {}).reduce((x, y) => x + y, 0);
    expect(b1).toBe(b0); // a rejected key reaches no tenant: the service saw none of B's calls

    // Rotation: the service gets a new key for tenant B; the Secret is updated; the workspace resumes.
    const res = await fetch(`${emu.adminUrl}/_emulator/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'rotated-b-key', tenant_id: tenantB, user_id: 'rotated' }),
    });
    expect(res.status).toBe(204);
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(secret(namespace, 'team-b-key', 'rotated-b-key')),
    });
    await waitFor(namespace, 'web-b', 'condition=Synced');
    await expect
      .poll(
        async () =>
          (await state(emu)).deployments.find((d) => d.name === 'web' && d.tenant_id === tenantB)
            ?.source_revision_config.image_uri,
        { timeout: 20_000 },
      )
      .toBe('agent:2');
    expect(condition(await get('workspaces.deploy.agents.dev', 'team-b', namespace), 'Ready')).toMatchObject({
      status: 'True',
    });
    const warned = await eventsOf(namespace, 'team-b', 'type=Warning');
    expect(warned.map((e) => e.reason)).toContain('Unauthorized');
    // No key reaches the log, an Event or a status: the canaries are the keys themselves.
    const told = [
      ...operator.logs,
      JSON.stringify(warned),
      JSON.stringify(await get('workspaces.deploy.agents.dev', 'team-b', namespace)),
    ].join('\n');
    for (const key of ['revoked-key', 'rotated-b-key', defaultSeedKeys.otherTenant, defaultSeedKeys.dev2])
      expect(told).not.toContain(key);
  }, 90_000);

  it('shows a resource whose workspace is missing as WorkspaceNotReady, and wakes it when the workspace comes', async () => {
    const before = await tenantCalls(emu, tenantB, 'POST /v2/deployments');
    await apply(
      namespace,
      agentDeployment('late', spec({ workspaceRef: { kind: 'Workspace', name: 'team-c' } })),
    );
    await expect
      .poll(async () => condition(await getCr(namespace, 'late'), 'Synced'), { timeout: 20_000 })
      .toMatchObject({
        status: 'False',
        reason: 'WorkspaceNotReady',
        message: `Workspace ${namespace}/team-c: not found`,
      });
    await apply(namespace, {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'team-c' },
      spec: { apiKeySecretRef: { name: 'team-b-key', key: 'api-key' } },
    });
    // Resync is 2 s here, so a wake-up on a timer would be quick too; the bound is what matters less than
    // that it happens at all without the resource changing.
    await waitFor(namespace, 'late', 'condition=Ready');
    expect(await tenantCalls(emu, tenantB, 'POST /v2/deployments')).toBe(before + 1);
  }, 60_000);

  it('holds the deletion of a workspace in use, lists who uses it, and lets it go after them', async () => {
    await kubectl(['delete', '-n', namespace, 'workspaces.deploy.agents.dev', 'team-c', '--wait=false']);
    await expect
      .poll(async () => (await get('workspaces.deploy.agents.dev', 'team-c', namespace)).status?.usedBy, {
        timeout: 20_000,
      })
      .toEqual([`Deployment ${namespace}/late`]);
    const held = await get('workspaces.deploy.agents.dev', 'team-c', namespace);
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(condition(held, 'Reconciling')).toMatchObject({ status: 'True', reason: 'InUse' });
    await kubectl(['delete', '-n', namespace, 'deployments.deploy.agents.dev', 'late', '--wait=true']);
    await kubectl([
      'wait',
      '-n',
      namespace,
      'workspaces.deploy.agents.dev/team-c',
      '--for=delete',
      '--timeout=30s',
    ]);
  }, 60_000);

  it('reports a Secret that is missing, and a tenant the key does not belong to', async () => {
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'deploy.agents.dev/v1alpha1',
            kind: 'Workspace',
            metadata: { name: 'no-secret', namespace },
            spec: { apiKeySecretRef: { name: 'absent', key: 'api-key' } },
          },
          {
            apiVersion: 'deploy.agents.dev/v1alpha1',
            kind: 'Workspace',
            metadata: { name: 'wrong-tenant', namespace },
            spec: { tenantId: tenantA, apiKeySecretRef: { name: 'team-b-key', key: 'api-key' } },
          },
        ],
      }),
    });
    const ready = async (name: string) =>
      condition(await get('workspaces.deploy.agents.dev', name, namespace), 'Ready');
    await expect
      .poll(() => ready('no-secret'), { timeout: 20_000 })
      .toMatchObject({
        status: 'False',
        reason: 'SecretNotFound',
        message: `Secret ${namespace}/absent not found`,
      });
    await expect
      .poll(() => ready('wrong-tenant'), { timeout: 20_000 })
      .toMatchObject({
        status: 'False',
        reason: 'Forbidden',
      });
    // The missing Secret appears: the workspace turns Ready on the Secret's event.
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(secret(namespace, 'absent', 'rotated-b-key')),
    });
    await expect.poll(() => ready('no-secret'), { timeout: 20_000 }).toMatchObject({ status: 'True' });
  }, 60_000);
});
