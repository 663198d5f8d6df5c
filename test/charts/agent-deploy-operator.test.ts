// The chart with a real helm (test/charts/helm/build.sh): lint, the schema refusing bad values, the
// objects it renders against deploy/'s, and every kind of src/api in its CRDs and RBAC.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { group } from '../../src/api/constants.ts';
import { kinds } from '../../src/api/kinds.ts';
import {
  chartDir,
  deployDir,
  helm,
  type K8sObject,
  objectKey,
  parseObjects,
  renderChart,
  substance,
} from './support.ts';

const chartFile = (name: string) => readFileSync(join(chartDir, name), 'utf8');

async function kustomize(): Promise<K8sObject[]> {
  const { stdout } = await promisify(execFile)('kubectl', ['kustomize', deployDir], { encoding: 'utf8' });
  return parseObjects(stdout);
}

const container = (objects: K8sObject[]) => {
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  const spec = (deployment.spec as { template: { spec: { containers: Record<string, unknown>[] } } })
    .template;
  return spec.spec.containers[0]!;
};

describe('charts/agent-deploy-operator', () => {
  it('passes helm lint --strict', async () => {
    const { stdout } = await helm('lint', '--strict', chartDir);
    expect(stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it("says the operator's version (package.json) as appVersion, the default image tag", async () => {
    const chart = parse(chartFile('Chart.yaml')) as { appVersion: string; kubeVersion: string };
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(chart.appVersion).toBe(version);
    expect(chart.kubeVersion).toBe('>=1.28.0-0');
    expect(container(await renderChart()).image).toBe(`agent-deploy-operator:${version}`);
  });

  it('renders, with default values, the objects kubectl kustomize deploy/ renders, but the Namespace', async () => {
    const chart = substance(await renderChart({ includeCrds: true }));
    const deploy = substance(await kustomize());
    const byKey = (objects: K8sObject[]) => new Map(objects.map((o) => [objectKey(o), o]));
    const [c, d] = [byKey(chart), byKey(deploy)];
    // Helm leaves the namespace to `helm install --create-namespace` (or the installer's own).
    expect([...d.keys()].filter((k) => !c.has(k))).toEqual(['Namespace agent-deploy-system']);
    expect([...c.keys()].filter((k) => !d.has(k))).toEqual([]);
    const differing = [...c.keys()].filter((k) => !isDeepStrictEqual(c.get(k), d.get(k)));
    for (const key of differing) expect(c.get(key), key).toEqual(d.get(key));
    // The comparison compares something: every kind of object on both sides.
    expect(new Set(chart.map((o) => o.kind))).toEqual(
      new Set([
        'CustomResourceDefinition',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'ConfigMap',
        'Deployment',
        'PodDisruptionBudget',
        'Service',
        'NetworkPolicy',
      ]),
    );
  });

  it("carries a CRD, an editor and a viewer role for every kind of src/api, and the operator's rules on each", async () => {
    const objects = await renderChart({ includeCrds: true });
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name);
    expect(crds.sort()).toEqual(kinds.map((k) => `${k.plural}.${group}`).sort());
    const roles = new Map(
      objects.filter((o) => o.kind === 'ClusterRole').map((o) => [o.metadata.name, o] as const),
    );
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const rules = (name: string) => (roles.get(name) as unknown as { rules: Rule[] }).rules;
    const may = (name: string, verb: string, resource: string) =>
      rules(name).some(
        (r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb),
      );
    for (const k of kinds) {
      const kind = k.kind.toLowerCase();
      const editor = roles.get(`agent-deploy-operator-${kind}-editor`)!;
      const viewer = roles.get(`agent-deploy-operator-${kind}-viewer`)!;
      expect(editor.metadata.labels).toMatchObject({
        'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
      });
      expect(viewer.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
      expect(viewer.metadata.labels).not.toHaveProperty('rbac.authorization.k8s.io/aggregate-to-edit');
      expect(may(editor.metadata.name, 'create', k.plural)).toBe(true);
      expect(may(editor.metadata.name, 'update', `${k.plural}/status`)).toBe(false);
      expect(may(viewer.metadata.name, 'watch', k.plural)).toBe(true);
      expect(may(viewer.metadata.name, 'delete', k.plural)).toBe(false);
      expect(may('agent-deploy-operator', 'watch', k.plural)).toBe(true);
      expect(may('agent-deploy-operator', 'patch', `${k.plural}/status`)).toBe(true);
      expect(may('agent-deploy-operator', 'delete', k.plural)).toBe(false);
    }
  });

  it('turns the values into the objects they name', async () => {
    const objects = await renderChart({
      values: {
        image: {
          repository: 'registry.example.com/agent-deploy-operator',
          digest: `sha256:${'a'.repeat(64)}`,
        },
        credentials: { secretName: 'creds', apiKey: 'the-key' },
        tenantId: '7d1f7a3e-0000-4000-8000-000000000000',
        watchNamespaces: ['team-a', 'team-b'],
        leaderElection: { enabled: false, id: 'unused' },
        replicaCount: 1,
        logLevel: 'debug',
        extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=200' }],
        networkPolicy: { enabled: true, metricsFrom: [] },
        podDisruptionBudget: { enabled: false },
        metrics: { service: { enabled: false } },
      },
    });
    const kinds = objects.map((o) => o.kind);
    expect(kinds).not.toContain('Role');
    expect(kinds).not.toContain('PodDisruptionBudget');
    expect(kinds).not.toContain('Service');
    const c = container(objects);
    expect(c.image).toBe(`registry.example.com/agent-deploy-operator@sha256:${'a'.repeat(64)}`);
    expect(c.args).not.toContain('--leader-elect');
    expect(c.args).toContain('--log-level=debug');
    expect(c.env).toEqual(
      expect.arrayContaining([
        { name: 'AGENT_DEPLOY_TENANT_ID', value: '7d1f7a3e-0000-4000-8000-000000000000' },
        { name: 'NODE_OPTIONS', value: '--max-old-space-size=200' },
      ]),
    );
    const config = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    expect(config.data.AGENT_DEPLOY_NAMESPACES).toBe('team-a,team-b');
    const secret = objects.find((o) => o.kind === 'Secret') as unknown as { data: Record<string, string> };
    expect(Buffer.from(secret.data['api-key']!, 'base64').toString()).toBe('the-key');
    const policy = objects.find((o) => o.kind === 'NetworkPolicy') as unknown as {
      spec: { ingress: unknown[] };
    };
    expect(policy.spec.ingress).toEqual([]);
  });

  it('documents every value in its README table', () => {
    const documented = new Set([...chartFile('README.md').matchAll(/^\| `([\w.]+)` \|/gm)].map((m) => m[1]!));
    const undocumented: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (documented.has(path)) return;
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length) {
        for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
      } else undocumented.push(path);
    };
    walk(parse(chartFile('values.yaml')), '');
    expect(undocumented).toEqual([]);
    expect(documented.size).toBeGreaterThan(30);
  });

  it.each([
    [
      { replicaCount: 2, leaderElection: { enabled: false } },
      "'/leaderElection/enabled': value must be true",
    ],
    [{ logLevel: 'verbose' }, "'/logLevel': value must be one of 'debug', 'info', 'warn', 'error'"],
    [{ imag: { tag: '1' } }, "additional properties 'imag' not allowed"],
    [
      { serviceUrl: 'deploy-service.example.com' },
      "'/serviceUrl': 'deploy-service.example.com' does not match",
    ],
    [{ image: { digest: 'latest' } }, "'/image/digest': 'latest' does not match"],
    [{ replicaCount: 0 }, "'/replicaCount': minimum: got 0, want 1"],
    [{ watchNamespaces: 'team-a' }, "'/watchNamespaces': got string, want array"],
    [
      { metrics: { serviceMonitor: { enabled: true }, service: { enabled: false } } },
      "'/metrics/service/enabled': value must be true",
    ],
  ])('refuses %j: %s', async (values, message) => {
    await expect(renderChart({ values })).rejects.toThrow(message);
  });
});
