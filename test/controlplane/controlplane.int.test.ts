// Proves the test control plane is a real Kubernetes API: CRDs with CEL, the status subresource,
// generation semantics, watches, RBAC and TokenRequest.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  adminKubeConfig,
  createTestNamespace,
  installCrds,
  kubectl,
  serviceAccountKubeconfig,
} from '../support/kube.ts';

const group = 'test.agents.dev';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  flavour: {
                    type: 'string',
                    'x-kubernetes-validations': [
                      { rule: 'self == oldSelf', message: 'spec.flavour cannot be changed after creation' },
                    ],
                  },
                  size: { type: 'integer' },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

describe('the test control plane', () => {
  let namespace: string;
  let api: CustomObjectsApi;
  const ref = (name: string) => ({ group, version: 'v1', namespace, plural: 'widgets', name });

  beforeAll(async () => {
    await installCrds([widgetCrd]);
    namespace = await createTestNamespace('cp');
    api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  });

  it('enforces a CEL immutability rule with the apiserver message', async () => {
    await kubectl(['apply', '-n', namespace, '-f', '-'], {
      input: JSON.stringify({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { flavour: 'plain', size: 1 },
      }),
    });
    const change = kubectl([
      'patch',
      '-n',
      namespace,
      `widgets.${group}`,
      'w1',
      '--type=merge',
      '-p',
      '{"spec":{"flavour":"spicy"}}',
    ]);
    await expect(change).rejects.toThrow(/spec\.flavour cannot be changed after creation/);
    await kubectl([
      'patch',
      '-n',
      namespace,
      `widgets.${group}`,
      'w1',
      '--type=merge',
      '-p',
      '{"spec":{"size":2}}',
    ]);
    const { stdout } = await kubectl([
      'get',
      '-n',
      namespace,
      `widgets.${group}`,
      'w1',
      '-o',
      'jsonpath={.spec.flavour}/{.spec.size}',
    ]);
    expect(stdout).toBe('plain/2');
  });

  it('keeps spec and status apart, and moves generation only on spec', async () => {
    const created = (await api.createNamespacedCustomObject({
      ...ref('w2'),
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w2' },
        spec: { flavour: 'a', size: 1 },
        status: { phase: 'ignored' },
      },
    })) as { metadata: { generation: number }; status?: unknown };
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined(); // status is dropped on create through the main resource

    const afterStatus = (await api.patchNamespacedCustomObjectStatus(
      {
        ...ref('w2'),
        body: { spec: { size: 99 }, status: { phase: 'Ready' } },
      },
      mergePatch,
    )) as {
      metadata: { generation: number };
      spec: { size: number };
      status: { phase: string };
    };
    expect(afterStatus.status.phase).toBe('Ready');
    expect(afterStatus.spec.size).toBe(1); // a status write does not change spec
    expect(afterStatus.metadata.generation).toBe(1);

    const afterSpec = (await api.patchNamespacedCustomObject(
      {
        ...ref('w2'),
        body: { spec: { size: 5 }, status: { phase: 'Hacked' } },
      },
      mergePatch,
    )) as typeof afterStatus;
    expect(afterSpec.spec.size).toBe(5);
    expect(afterSpec.status.phase).toBe('Ready'); // a spec write does not change status
    expect(afterSpec.metadata.generation).toBe(2);
  });

  it('delivers ADDED, MODIFIED and DELETED in order on a watch', async () => {
    const kc = adminKubeConfig();
    const events: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      void new Watch(kc)
        .watch(
          `/apis/${group}/v1/namespaces/${namespace}/widgets`,
          { fieldSelector: 'metadata.name=w3' },
          (type: string, obj: { spec?: { size?: number } }) => {
            events.push(`${type}:${obj.spec?.size}`);
            if (type === 'DELETED') resolve();
          },
          (err: unknown) => (err ? reject(err) : undefined),
        )
        .then((req) => done.finally(() => req.abort()));
    });
    await new Promise((r) => setTimeout(r, 300)); // let the watch open before the writes
    await api.createNamespacedCustomObject({
      ...ref('w3'),
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w3' },
        spec: { flavour: 'x', size: 1 },
      },
    });
    await api.patchNamespacedCustomObject({ ...ref('w3'), body: { spec: { size: 2 } } }, mergePatch);
    await api.deleteNamespacedCustomObject(ref('w3'));
    await done;
    expect(events).toEqual(['ADDED:1', 'MODIFIED:2', 'DELETED:2']);
  });

  it('authorizes with RBAC: a ServiceAccount token minted by TokenRequest gets only what it is granted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-'));
    const saConfig = await serviceAccountKubeconfig(namespace, 'reader', dir);
    await expect(
      kubectl(['get', `widgets.${group}`, '-n', namespace], { kubeconfig: saConfig }),
    ).rejects.toThrow(/forbidden: User "system:serviceaccount:[^:]+:reader" cannot list resource "widgets"/);
    await kubectl([
      'create',
      'role',
      'widget-reader',
      '-n',
      namespace,
      '--verb=list',
      `--resource=widgets.${group}`,
    ]);
    await kubectl([
      'create',
      'rolebinding',
      'widget-reader',
      '-n',
      namespace,
      '--role=widget-reader',
      `--serviceaccount=${namespace}:reader`,
    ]);
    const { stdout } = await kubectl(['get', `widgets.${group}`, '-n', namespace, '-o', 'name'], {
      kubeconfig: saConfig,
    });
    expect(stdout).toContain('widget.test.agents.dev/w1');
    const sa = new KubeConfig();
    sa.loadFromFile(saConfig);
    expect(sa.getCurrentUser()?.token).toMatch(/^ey/); // a signed JWT, not the admin token
  });
});
