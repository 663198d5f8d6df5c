// The chart on a real kube-apiserver (RBAC and Pod Security admission on), rendered by a real helm:
// with default values and with every optional feature on, its objects pass a server-side dry run in a
// namespace enforcing the restricted profile, without warnings; the operator, running with the
// ServiceAccount token and RBAC the chart renders, takes a Deployment to Ready; the editor and viewer
// ClusterRoles grant what they say.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.ts';
import { agentDeployment, apply, getCr, setUp, waitFor } from '../controllers/deployment/support.ts';
import { installCrds, kubeconfigPath, kubectl, serviceAccountKubeconfig } from '../support/kube.ts';
import { type OperatorProcess, startOperator } from '../support/operator.ts';
import { chartDir, helm, type K8sObject, renderChart } from './support.ts';

const release = 'chart-test';
const fullname = `${release}-agent-deploy-operator`;
const leaseId = 'chart-test-leader';
const priorityClass = 'agent-deploy-chart-test';

/** Every optional feature on, every value set to something other than its default. */
const allFeatures = (watched: string) => ({
  image: {
    repository: 'registry.example.com/agent-deploy-operator',
    tag: '0.1.0',
    digest: `sha256:${'b'.repeat(64)}`,
  },
  imagePullSecrets: [{ name: 'regcred' }],
  serviceUrl: 'https://deploy-service.example.org/api',
  credentials: { secretName: 'chart-test-credentials', apiKey: 'not-a-real-key' },
  tenantId: '7d1f7a3e-0000-4000-8000-000000000000',
  defaultWorkspace: 'shared',
  watchNamespaces: [watched],
  resync: '5m',
  replicaCount: 3,
  leaderElection: { enabled: true, id: leaseId },
  logLevel: 'debug',
  serviceAccount: {
    create: true,
    name: 'chart-test-operator',
    annotations: { 'example.com/role': 'operator' },
  },
  resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'operators', effect: 'NoSchedule' }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] },
        ],
      },
    },
  },
  priorityClassName: priorityClass,
  podAnnotations: { 'example.com/team': 'platform' },
  podLabels: { 'example.com/tier': 'control' },
  extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=200' }],
  metrics: {
    port: 9090,
    service: { enabled: true, annotations: { 'example.com/scraped': 'yes' } },
    serviceMonitor: { enabled: true, interval: '30s', labels: { release: 'prometheus' } },
  },
  networkPolicy: {
    enabled: true,
    metricsFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
  },
  podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
});

/**
 * The Prometheus Operator's ServiceMonitor CRD, reduced to the fields the chart writes (the real one has
 * many more); structural and without preserved unknown fields, so a misspelt field is refused.
 */
const serviceMonitorCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'servicemonitors.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com',
    names: {
      kind: 'ServiceMonitor',
      listKind: 'ServiceMonitorList',
      plural: 'servicemonitors',
      singular: 'servicemonitor',
    },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['selector', 'endpoints'],
                properties: {
                  selector: {
                    type: 'object',
                    properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
                  },
                  namespaceSelector: {
                    type: 'object',
                    properties: { matchNames: { type: 'array', items: { type: 'string' } } },
                  },
                  endpoints: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        port: { type: 'string' },
                        path: { type: 'string' },
                        interval: {
                          type: 'string',
                          pattern:
                            '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$',
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const list = (items: object[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

/** A namespace whose Pod Security labels enforce, warn about and audit the restricted profile. */
async function restrictedNamespace(): Promise<string> {
  const name = `agent-deploy-chart-${randomBytes(3).toString('hex')}`;
  const level = 'restricted';
  await kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        labels: {
          'pod-security.kubernetes.io/enforce': level,
          'pod-security.kubernetes.io/enforce-version': 'latest',
          'pod-security.kubernetes.io/warn': level,
          'pod-security.kubernetes.io/audit': level,
        },
      },
    }),
  });
  return name;
}

const podTemplate = (objects: K8sObject[]) =>
  (objects.find((o) => o.kind === 'Deployment')!.spec as { template: { spec: Record<string, unknown> } })
    .template.spec;

describe('charts/agent-deploy-operator on a cluster', () => {
  let system: string;
  let namespace: string;
  let emu: RunningEmulator;
  let dir: string;
  let operator: OperatorProcess | undefined;
  const clusterScoped: string[] = [];

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('chart'));
    system = await restrictedNamespace();
    await installCrds([serviceMonitorCrd]);
    clusterScoped.push(
      `CustomResourceDefinition/${serviceMonitorCrd.metadata.name}`,
      `PriorityClass/${priorityClass}`,
    );
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: priorityClass },
        value: 1000,
      }),
    });
    dir = mkdtempSync(join(tmpdir(), 'agent-deploy-chart-'));
  });
  afterAll(async () => {
    await operator?.kill();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
    for (const name of clusterScoped) await kubectl(['delete', '--ignore-not-found', name]);
  });

  it.each([
    ['default values', () => ({})],
    ['every optional feature on', () => allFeatures(namespace)],
  ])(
    'with %s, passes a server-side dry run in a restricted namespace without warnings',
    async (_, values) => {
      const objects = await renderChart({ values: values(), includeCrds: true, namespace: system });
      const { stdout, stderr } = await kubectl(
        // Server-side, as the CRDs already there were applied (client-side apply would warn about that).
        [
          'apply',
          '--server-side',
          '--force-conflicts',
          '--field-manager=helm',
          '--dry-run=server',
          '-f',
          '-',
        ],
        {
          input: list(objects),
        },
      );
      expect(stderr).toBe('');
      expect(stdout).toMatch(/deployment\.apps\/\S+ serverside-applied \(server dry run\)/);
      expect(stdout).toMatch(
        /customresourcedefinition\.apiextensions\.k8s\.io\/deployments\.deploy\.agents\.dev/,
      );
      // The pod itself, as the ReplicaSet would create it, admitted where restricted is enforced.
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pss-check', namespace: system },
        spec: podTemplate(objects),
      };
      const created = await kubectl(['create', '--dry-run=server', '-f', '-'], {
        input: JSON.stringify(pod),
      });
      expect(created.stderr).toBe('');
      const kinds = new Set(objects.map((o) => o.kind));
      if (Object.keys(values()).length > 0) {
        for (const kind of ['Secret', 'ServiceMonitor', 'NetworkPolicy', 'PodDisruptionBudget', 'Role']) {
          expect(kinds).toContain(kind);
        }
        expect(stdout).toMatch(
          /servicemonitor\.monitoring\.coreos\.com\/\S+ serverside-applied \(server dry run\)/,
        );
      }
    },
  );

  it('installs (helm install --dry-run=server: kubeVersion checked against the server) and says what to do next', async () => {
    const { stdout } = await helm(
      'install',
      release,
      chartDir,
      '--namespace',
      system,
      '--kubeconfig',
      kubeconfigPath(),
      '--dry-run=server',
    );
    const notes = stdout.slice(stdout.indexOf('NOTES:'));
    expect(notes).toContain(`agent-deploy-operator 0.1.0 is installed in namespace ${system}`);
    expect(notes).toContain('WARNING: serviceUrl is still https://deploy-service.example.com');
    expect(notes).toContain(`kubectl -n ${system} create secret generic agent-deploy-credentials`);
    expect(notes).toContain(`rollout status deploy/${fullname}`);
    expect(notes).toContain('Helm installs the CRDs on the first install only');
  });

  it('lets the operator, on the token and RBAC the chart renders, take a Deployment to Ready', async () => {
    // Release chart-test: nothing collides with deploy/'s objects (test/deploy/install.int.test.ts).
    const objects = await renderChart({
      release,
      namespace: system,
      values: { leaderElection: { enabled: true, id: leaseId }, watchNamespaces: [namespace] },
    });
    // Everything but the operator Deployment, for real (the CRDs are installed already, from crds/).
    const items = objects.filter((o) => o.kind !== 'Deployment');
    for (const o of items) if (!o.metadata.namespace) clusterScoped.push(`${o.kind}/${o.metadata.name}`);
    await kubectl(['apply', '-f', '-'], { input: list(items) });
    const tokenKubeconfig = await serviceAccountKubeconfig(system, fullname, dir);

    // The operator as the chart runs it: its flags, and its environment from the chart's ConfigMap.
    const container = (podTemplate(objects).containers as { args: string[] }[])[0]!;
    const config = items.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    expect(config.data).toMatchObject({
      AGENT_DEPLOY_NAMESPACES: namespace,
      AGENT_DEPLOY_LEADER_ELECTION_ID: leaseId,
    });
    const { AGENT_DEPLOY_SERVICE_URL: _, AGENT_DEPLOY_RESYNC: __, ...env } = config.data;
    operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [],
      kubeconfig: tokenKubeconfig,
      resync: '5s',
      extraArgs: [
        ...container.args.filter((a) => a === '--leader-elect' || a.startsWith('--log-level=')),
        // In a pod this is read from the ServiceAccount's mount.
        '--leader-election-namespace',
        system,
      ],
      env: { ...env, POD_NAME: `${fullname}-0` },
    });
    await operator.waitForLog(/became leader/);
    const { stdout: holder } = await kubectl([
      'get',
      'lease',
      leaseId,
      '-n',
      system,
      '-o',
      'jsonpath={.spec.holderIdentity}',
    ]);
    expect(holder).toBe(`${fullname}-0`);

    await apply(
      namespace,
      agentDeployment('from-chart', {
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:1' },
        deletionPolicy: 'Delete',
      }),
    );
    await waitFor(namespace, 'from-chart', 'condition=Ready');
    expect((await getCr(namespace, 'from-chart')).metadata.finalizers).toEqual([
      'deploy.agents.dev/finalizer',
    ]);
    await kubectl([
      'delete',
      '-n',
      namespace,
      'deployments.deploy.agents.dev',
      'from-chart',
      '--timeout=30s',
    ]);

    await operator.kill('SIGTERM');
    expect(await operator.exited).toBe(0);
    expect(operator.logs.filter((l) => /\b403\b|forbidden/i.test(l))).toEqual([]);
  });

  it("grants the editor and viewer ClusterRoles' holders what their names say, on every kind", async () => {
    const objects = await renderChart({ release, namespace: system });
    const roles = objects.filter(
      (o) => o.kind === 'ClusterRole' && /-(editor|viewer)$/.test(o.metadata.name),
    );
    for (const o of roles) clusterScoped.push(`${o.kind}/${o.metadata.name}`);
    await kubectl(['apply', '-f', '-'], { input: list(roles) });
    const binding = (role: string, user: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${user}-${role}`, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
    await kubectl(['apply', '-f', '-'], {
      input: list([
        binding(`${fullname}-deployment-editor`, 'editor'),
        binding(`${fullname}-deployment-viewer`, 'viewer'),
      ]),
    });
    /** `kubectl auth can-i` as the user: exit code 0 is yes, 1 is no. */
    const can = async (user: string, ...args: string[]) => {
      const argv = [
        '--kubeconfig',
        kubeconfigPath(),
        'auth',
        'can-i',
        '--as',
        user,
        '-n',
        namespace,
        ...args,
      ];
      try {
        await promisify(execFile)('kubectl', argv);
        return 'yes';
      } catch (err) {
        if ((err as { code?: number }).code === 1) return 'no';
        throw err;
      }
    };
    expect(await can('editor', 'create', 'deployments.deploy.agents.dev')).toBe('yes');
    expect(await can('editor', 'delete', 'deployments.deploy.agents.dev')).toBe('yes');
    expect(await can('editor', 'patch', 'deployments.deploy.agents.dev', '--subresource', 'status')).toBe(
      'no',
    );
    expect(await can('editor', 'create', 'listeners.deploy.agents.dev')).toBe('no');
    expect(await can('viewer', 'list', 'deployments.deploy.agents.dev')).toBe('yes');
    expect(await can('viewer', 'update', 'deployments.deploy.agents.dev')).toBe('no');
  });
});
