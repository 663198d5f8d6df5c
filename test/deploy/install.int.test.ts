// deploy/ on a real kube-apiserver (RBAC and Pod Security admission on): the manifests pass a server
// dry run, the pod meets the restricted profile, and the operator running with the ServiceAccount's
// own token (exactly the RBAC deploy/ grants) takes a Deployment through create, update and delete.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { RunningEmulator } from '../../src/emulator/server.ts';
import {
  agentDeployment,
  apply,
  emulatorState,
  getCr,
  setUp,
  waitFor,
} from '../controllers/deployment/support.ts';
import { kubectl, serviceAccountKubeconfig } from '../support/kube.ts';
import { type OperatorProcess, startOperator } from '../support/operator.ts';

const deployDir = new URL('../../deploy/', import.meta.url).pathname;
const system = 'agent-deploy-system';
const serviceAccount = 'agent-deploy-operator';

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
}

/** deploy/ as kubectl's built-in kustomize renders it. */
async function rendered(): Promise<Doc[]> {
  const { stdout } = await kubectl(['kustomize', deployDir]);
  return parseAllDocuments(stdout).map((d) => d.toJSON() as Doc);
}

/** `kubectl auth can-i` as the given kubeconfig: exit code 0 is yes, 1 is no. */
async function canI(kubeconfig: string, ...args: string[]): Promise<boolean> {
  try {
    await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, 'auth', 'can-i', ...args]);
    return true;
  } catch (err) {
    if ((err as { code?: number }).code === 1) return false;
    throw err;
  }
}

describe('deploy/', () => {
  let docs: Doc[];
  let namespace: string;
  let emu: RunningEmulator;
  let dir: string;
  let tokenKubeconfig: string;
  let operator: OperatorProcess | undefined;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('install'));
    docs = await rendered();
    // Everything but the operator Deployment, for real: namespace, ServiceAccount, RBAC, config, Service.
    // (The CRDs are already installed, from the same files.)
    const items = docs.filter((d) => d.kind !== 'Deployment' && d.kind !== 'CustomResourceDefinition');
    await kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
    dir = mkdtempSync(join(tmpdir(), 'agent-deploy-sa-'));
    tokenKubeconfig = await serviceAccountKubeconfig(system, serviceAccount, dir);
  });
  afterAll(async () => {
    await operator?.kill();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes a server-side dry run, CRDs and operator Deployment included, without Pod Security warnings', async () => {
    const { stdout, stderr } = await kubectl(['apply', '--dry-run=server', '-k', deployDir]);
    expect(stdout).toMatch(
      /deployment\.apps\/agent-deploy-operator (created|configured|unchanged) \(server dry run\)/,
    );
    expect(stdout).toMatch(
      /customresourcedefinition\.apiextensions\.k8s\.io\/deployments\.deploy\.agents\.dev/,
    );
    expect(stderr).not.toMatch(/PodSecurity/);
  });

  it('runs a pod the restricted Pod Security profile admits, in a namespace that enforces it', async () => {
    const ns = docs.find((d) => d.kind === 'Namespace')!;
    expect(ns.metadata).toMatchObject({
      name: system,
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
    });
    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const template = (deployment.spec as { template: { spec: Record<string, unknown> } }).template;
    const pod = (spec: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pss-check', namespace: system },
        spec,
      });
    await kubectl(['create', '--dry-run=server', '-f', '-'], { input: pod(template.spec) });
    // The same pod without its security settings is refused: the label is really enforced.
    const containers = (template.spec.containers as Record<string, unknown>[]).map(
      ({ securityContext: _, ...rest }) => rest,
    );
    const { securityContext: _, ...loose } = template.spec;
    await expect(
      kubectl(['create', '--dry-run=server', '-f', '-'], { input: pod({ ...loose, containers }) }),
    ).rejects.toThrow(/violates PodSecurity "restricted/);
  });

  it('grants the ServiceAccount what the operator needs and nothing more', async () => {
    const yes = (...args: string[]) => canI(tokenKubeconfig, ...args);
    expect(await yes('list', 'deployments.deploy.agents.dev', '-A')).toBe(true);
    expect(await yes('patch', 'deployments.deploy.agents.dev/status', '-n', namespace)).toBe(true);
    expect(await yes('watch', 'listeners.deploy.agents.dev')).toBe(true);
    expect(await yes('watch', 'workspaces.deploy.agents.dev', '-A')).toBe(true);
    expect(await yes('patch', 'clusterworkspaces.deploy.agents.dev/status')).toBe(true);
    expect(await yes('delete', 'clusterworkspaces.deploy.agents.dev')).toBe(false);
    expect(await yes('create', 'workspaces.deploy.agents.dev', '-n', namespace)).toBe(false);
    expect(await yes('watch', 'secrets', '-A')).toBe(true);
    expect(await yes('create', 'events', '-n', namespace)).toBe(true);
    expect(await yes('update', 'leases/agent-deploy-operator', '-n', system)).toBe(true);

    expect(await yes('list', 'pods', '-A')).toBe(false);
    expect(await yes('create', 'secrets', '-n', namespace)).toBe(false);
    expect(await yes('delete', 'deployments.deploy.agents.dev', '-n', namespace)).toBe(false);
    expect(await yes('delete', 'events', '-n', namespace)).toBe(false);
    expect(await yes('get', 'leases', '-n', 'default')).toBe(false);
    expect(await yes('get', 'leases/agent-deploy-operator', '-n', namespace)).toBe(false);
    expect(await yes('update', 'leases/some-other-lease', '-n', system)).toBe(false);
    expect(await yes('list', 'deployments.apps', '-A')).toBe(false);
    // Not only the authorizer's answer: a real request is refused too.
    await expect(kubectl(['get', 'pods', '-A'], { kubeconfig: tokenKubeconfig })).rejects.toThrow(
      /Forbidden/,
    );
    await expect(
      kubectl(['get', 'leases', '-n', 'default'], { kubeconfig: tokenKubeconfig }),
    ).rejects.toThrow(/Forbidden/);
  });

  it('lets the operator, on the ServiceAccount token, create, update and delete a Deployment with no 403', async () => {
    operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      kubeconfig: tokenKubeconfig,
      resync: '5s',
      extraArgs: ['--leader-elect', '--leader-election-namespace', system],
      env: { POD_NAME: 'agent-deploy-operator-install-test' },
    });
    await operator.waitForLog(/became leader/);

    const spec = (image: string) => ({
      source: 'internal_docker',
      sourceRevisionConfig: { imageUri: image },
      deletionPolicy: 'Delete',
    });
    await apply(namespace, agentDeployment('rbac', spec('agent:1')));
    await waitFor(namespace, 'rbac', 'condition=Ready');
    expect((await getCr(namespace, 'rbac')).metadata.finalizers).toEqual(['deploy.agents.dev/finalizer']);

    await apply(namespace, agentDeployment('rbac', spec('agent:2')));
    await waitFor(namespace, 'rbac', 'jsonpath={.status.observedGeneration}=2');
    await waitFor(namespace, 'rbac', 'condition=Ready');
    const state = await emulatorState(emu);
    expect(state.calls['PATCH /v2/deployments/{deployment_id}']).toBe(1);
    expect(state.deployments.find((d) => d.name === 'rbac')!.revisions).toHaveLength(2);

    await kubectl(['delete', '-n', namespace, 'deployments.deploy.agents.dev', 'rbac', '--timeout=30s']);
    expect((await emulatorState(emu)).deployments.map((d) => d.name)).not.toContain('rbac');

    // Events were recorded with the ServiceAccount's rights.
    const { stdout } = await kubectl(['get', 'events', '-n', namespace, '-o', 'json']);
    const reasons = (JSON.parse(stdout) as { items: { reason: string }[] }).items.map((e) => e.reason);
    expect(reasons).toContain('Created');

    await operator.kill('SIGTERM');
    expect(await operator.exited).toBe(0);
    expect(operator.logs.some((l) => /released the lease/.test(l))).toBe(true);
    const problems = operator.logs.filter((l) => /\b403\b|forbidden/i.test(l));
    expect(problems).toEqual([]);
  });
});
