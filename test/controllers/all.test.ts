// The operator's controllers, wired as the operator command wires them: each kind is listed and watched
// by one shared informer, however many controllers need it.
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { controllerFactories } from '../../src/controllers/all.ts';
import { WorkspaceConnection } from '../../src/controllers/workspace/connection.ts';
import { ownWorkspace } from '../../src/controllers/workspace/refs.ts';
import { Workspaces } from '../../src/controllers/workspace/registry.ts';
import { KubeClient } from '../../src/runtime/kube.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';
import { ServiceClient } from '../../src/service/client.ts';

// Nothing is started: no request reaches these addresses.
const kube = await KubeClient.fromKubeConfig({
  getCurrentCluster: () => ({ name: 'none', server: 'https://127.0.0.1:9', skipTLSVerify: false }),
  getCurrentUser: () => null,
});
const own = new WorkspaceConnection(
  ownWorkspace,
  new ServiceClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }),
  { serviceUrl: 'http://127.0.0.1:9' },
);
afterAll(async () => {
  await kube.close();
  await own.close();
});

describe('controllerFactories', () => {
  it('share one informer per kind: Listeners are watched once, though two controllers read them', () => {
    const informers = new SharedInformers(kube, { resyncMs: 60_000 });
    const workspaces = new Workspaces({
      fallback: ownWorkspace,
      own,
      exists: () => false,
      connect: () => {
        throw new Error('not in this test');
      },
    });
    const context = {
      kube,
      workspaces,
      workspaceDefaults: { serviceUrl: 'http://127.0.0.1:9', clusterResourceNamespace: 'default' },
      informers,
      resyncMs: 60_000,
      concurrency: 1,
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
    };
    const controllers = controllerFactories.map((factory) => factory(context));
    expect(controllers).toHaveLength(5);
    const watched = controllers.flatMap((c) => c.controller.informers());
    // Every managed controller watches its kind and the two workspace kinds (for their caches); the
    // Deployment controller also Secret identities and Listeners, the Listener controller Listeners
    // again; the workspace controller the two workspace kinds and Secret identities: 4×3 + 2 + 3 = 17
    // watches over seven informers, every one of them shared.
    expect(watched).toHaveLength(17);
    expect(new Set(watched).size).toBe(7);
    expect(new Set(informers.all())).toEqual(new Set(watched));
  });
});
