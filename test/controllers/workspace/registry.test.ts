// How a resource reaches the service: the registry of workspaces, with real clients that are never called.
import { afterAll, describe, expect, it } from 'vitest';
import {
  type KeyRef,
  SecretKeySource,
  WorkspaceConnection,
} from '../../../src/controllers/workspace/connection.ts';
import { fallbackWorkspace, ownWorkspace, workspaceKeyOf } from '../../../src/controllers/workspace/refs.ts';
import { Workspaces } from '../../../src/controllers/workspace/registry.ts';
import { ServiceClient } from '../../../src/service/client.ts';

const opened: WorkspaceConnection[] = [];
const connection = (key: string, serviceUrl = 'http://127.0.0.1:9', secret?: KeyRef) => {
  const apiKey = secret && new SecretKeySource(secret);
  const service = new ServiceClient({ baseUrl: serviceUrl, apiKey: apiKey ?? 'k' });
  const c = new WorkspaceConnection(key, service, { serviceUrl }, apiKey);
  opened.push(c);
  return c;
};
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
});

const cr = (workspaceRef?: { kind: 'Workspace' | 'ClusterWorkspace'; name: string }) => ({
  metadata: { name: 'web', namespace: 'team-a' },
  spec: workspaceRef ? { workspaceRef } : {},
});

function registry(options: { own?: boolean; fallback?: string; existing?: string[] } = {}) {
  const changed: string[] = [];
  const workspaces = new Workspaces({
    fallback: options.fallback ?? ownWorkspace,
    own: options.own === false ? undefined : connection(ownWorkspace),
    exists: (key) => (options.existing ?? []).includes(key),
    connect: (key, settings, secret) => connection(key, settings.serviceUrl, secret),
  });
  workspaces.onChange((key) => changed.push(key));
  return { workspaces, changed };
}

describe('workspaceKeyOf', () => {
  it('names a Workspace by namespace, a ClusterWorkspace by name, and falls back without a ref', () => {
    expect(workspaceKeyOf(cr({ kind: 'Workspace', name: 'dev' }), ownWorkspace)).toBe('Workspace/team-a/dev');
    expect(workspaceKeyOf(cr({ kind: 'ClusterWorkspace', name: 'prod' }), ownWorkspace)).toBe(
      'ClusterWorkspace/prod',
    );
    expect(workspaceKeyOf(cr(), fallbackWorkspace('prod'))).toBe('ClusterWorkspace/prod');
    expect(workspaceKeyOf(cr(), fallbackWorkspace(undefined))).toBe(ownWorkspace);
  });
});

describe('Workspaces', () => {
  it('lets a resource without a ref act with the operator own key, and says so when there is none', () => {
    expect('connection' in registry().workspaces.of(cr())).toBe(true);
    expect(registry({ own: false }).workspaces.of(cr())).toMatchObject({
      problem: { reason: 'WorkspaceNotReady', message: expect.stringMatching(/no API key of its own/) },
    });
  });

  it('holds a resource quietly until its existing workspace is judged, then wakes it once per change', () => {
    const key = 'Workspace/team-a/dev';
    const { workspaces, changed } = registry({ existing: [key] });
    const resource = cr({ kind: 'Workspace', name: 'dev' });
    expect(workspaces.of(resource)).toEqual({ pending: true });
    workspaces.connect(
      key,
      { serviceUrl: 'http://127.0.0.1:9' },
      { namespace: 'team-a', name: 's', key: 'k' },
    );
    workspaces.set(key, { ready: true });
    workspaces.set(key, { ready: true });
    expect('connection' in workspaces.of(resource)).toBe(true);
    const problem = { reason: 'Unauthorized' as const, message: 'rejected', stalled: false };
    workspaces.set(key, { problem });
    expect(workspaces.of(resource)).toMatchObject({
      problem: { reason: 'WorkspaceNotReady', message: 'Workspace team-a/dev: rejected' },
    });
    expect(changed).toEqual([key, key]);
  });

  it('says a workspace that does not exist is not found, and a default ClusterWorkspace is asked for like any', () => {
    const { workspaces } = registry({ fallback: fallbackWorkspace('prod') });
    expect(workspaces.of(cr())).toMatchObject({
      problem: { message: 'ClusterWorkspace prod: not found' },
    });
  });

  it('keeps a connection while its settings hold, and makes a new one when they change', () => {
    const { workspaces } = registry();
    const secret = { namespace: 'n', name: 's', key: 'k' };
    const first = workspaces.connect('ClusterWorkspace/x', { serviceUrl: 'http://127.0.0.1:9' }, secret);
    expect(workspaces.connect('ClusterWorkspace/x', { serviceUrl: 'http://127.0.0.1:9' }, secret)).toBe(
      first,
    );
    const moved = workspaces.connect('ClusterWorkspace/x', { serviceUrl: 'http://127.0.0.1:8' }, secret);
    expect(moved).not.toBe(first);
    expect(
      workspaces.connect(
        'ClusterWorkspace/x',
        { serviceUrl: 'http://127.0.0.1:8' },
        { ...secret, key: 'other' },
      ),
    ).not.toBe(moved);
  });
});
