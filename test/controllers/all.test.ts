// The operator's controllers, wired as the operator command wires them: each kind is listed and watched
// by one shared informer, however many controllers need it.
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { controllerFactories } from '../../src/controllers/all.ts';
import { KubeClient } from '../../src/runtime/kube.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';
import { ServiceClient } from '../../src/service/client.ts';

// Nothing is started: no request reaches these addresses.
const kube = await KubeClient.fromKubeConfig({
  getCurrentCluster: () => ({ name: 'none', server: 'https://127.0.0.1:9', skipTLSVerify: false }),
  getCurrentUser: () => null,
});
const service = new ServiceClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
afterAll(async () => {
  await kube.close();
  await service.close();
});

describe('controllerFactories', () => {
  it('share one informer per kind: Listeners are watched once, though two controllers read them', () => {
    const informers = new SharedInformers(kube, { resyncMs: 60_000 });
    const context = {
      kube,
      service,
      informers,
      resyncMs: 60_000,
      concurrency: 1,
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
    };
    const controllers = controllerFactories.map((factory) => factory(context));
    expect(controllers).toHaveLength(4);
    const watched = controllers.flatMap((c) => c.controller.informers());
    // Deployments, Secret identities and Listeners for the Deployment controller; Listeners again, and
    // the other two kinds, for theirs: six watches over five informers, every one of them shared.
    expect(watched).toHaveLength(6);
    expect(new Set(watched).size).toBe(5);
    expect(new Set(informers.all())).toEqual(new Set(watched));
  });
});
