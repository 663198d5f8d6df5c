// deploy/ as kubectl kustomize renders it: editor and viewer roles for every kind of src/api that
// aggregate into the built-in ones, /metrics reachable only from namespaces labelled for it, and a
// PodDisruptionBudget that lets a drain take one of the two replicas at a time.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { group } from '../../src/api/constants.ts';
import { kinds } from '../../src/api/kinds.ts';
import { deployDir, type K8sObject, parseObjects } from '../charts/support.ts';

const rendered = async (): Promise<K8sObject[]> =>
  parseObjects((await promisify(execFile)('kubectl', ['kustomize', deployDir], { encoding: 'utf8' })).stdout);

const find = (objects: K8sObject[], kind: string, name = 'agent-deploy-operator') =>
  objects.find((o) => o.kind === kind && o.metadata.name === name) as
    | (K8sObject & { spec: Record<string, unknown> })
    | undefined;

const operatorPods = {
  'app.kubernetes.io/name': 'agent-deploy-operator',
  'app.kubernetes.io/component': 'operator',
};

describe('deploy/ hardening', () => {
  it('has an editor role (into admin and edit) and a viewer role (into view) for every kind', async () => {
    const objects = await rendered();
    for (const k of kinds) {
      const kind = k.kind.toLowerCase();
      const editor = find(objects, 'ClusterRole', `agent-deploy-operator-${kind}-editor`);
      const viewer = find(objects, 'ClusterRole', `agent-deploy-operator-${kind}-viewer`);
      expect(editor?.metadata.labels, kind).toMatchObject({
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
      });
      expect(viewer?.metadata.labels, kind).toMatchObject({
        'rbac.authorization.k8s.io/aggregate-to-view': 'true',
      });
      expect((editor as unknown as { rules: unknown[] }).rules).toContainEqual({
        apiGroups: [group],
        resources: [k.plural],
        verbs: ['get', 'list', 'watch', 'create', 'delete', 'deletecollection', 'patch', 'update'],
      });
      expect((viewer as unknown as { rules: unknown[] }).rules).toContainEqual({
        apiGroups: [group],
        resources: [k.plural],
        verbs: ['get', 'list', 'watch'],
      });
    }
  });

  it('lets only namespaces labelled metrics=enabled reach the port that serves /metrics', async () => {
    const objects = await rendered();
    const deployment = find(objects, 'Deployment')!;
    const container = (
      deployment.spec as {
        template: { spec: { containers: { args: string[]; ports: { containerPort: number }[] }[] } };
      }
    ).template.spec.containers[0]!;
    expect(container.args).toContain('--health-host=0.0.0.0');
    const port = container.ports[0]!.containerPort;
    const policy = find(objects, 'NetworkPolicy')!;
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: operatorPods },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }],
          ports: [{ port, protocol: 'TCP' }],
        },
      ],
    });
  });

  it('keeps one of the two leader-elected replicas through a drain', async () => {
    const objects = await rendered();
    const deployment = find(objects, 'Deployment')!;
    expect(deployment.spec.replicas).toBe(2);
    expect(find(objects, 'PodDisruptionBudget')!.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: operatorPods },
    });
    expect((deployment.spec.selector as { matchLabels: object }).matchLabels).toEqual(operatorPods);
  });
});
