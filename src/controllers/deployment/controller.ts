// Wires the Deployment controller: informers for Deployment resources, the Secrets and Listeners they
// refer to, the batched observer of the service, and the reconciler behind a work queue.
import type { DeploymentResource } from '../../api/deployment.ts';
import type { ListenerResource } from '../../api/listener.ts';
import { Controller, watchPrimary, watchSecondary } from '../../runtime/controller.ts';
import { Informer, resourceListerWatcher } from '../../runtime/informer.ts';
import { type KubeObject, type ResourceRef, SECRETS, type Secret } from '../../runtime/kube.ts';
import { wakeOnAuthRestored } from '../auth-wake.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { repositoryFinder } from './inputs.ts';
import { DeploymentObserver } from './observer.ts';
import { DEPLOYMENTS, DeploymentReconciler, keyOf, knownId } from './reconciler.ts';

export const LISTENERS: ResourceRef = {
  group: 'deploy.agents.dev',
  version: 'v1alpha1',
  plural: 'listeners',
  namespaced: false,
};

/** The Deployment resources in `namespace` that read Secret `name`. */
function readersOf(deployments: Informer<DeploymentResource>, secret: Secret): string[] {
  return deployments
    .list()
    .filter(
      (d) =>
        d.metadata.namespace === secret.metadata.namespace &&
        ((d.spec.secrets ?? []).some((s) => s.valueFrom?.secretKeyRef.name === secret.metadata.name) ||
          (d.spec.secretsFrom ?? []).some((s) => s.secretRef.name === secret.metadata.name)),
    )
    .map(keyOf);
}

/** The service deployment ids the resources have recorded. */
function* deploymentIds(deployments: Informer<DeploymentResource>): Iterable<string> {
  for (const d of deployments.list()) {
    const id = knownId(d);
    if (id) yield id;
  }
}

export function deploymentController(options: ControllerContext): OperatorController {
  const { kube, service, namespaces, resyncMs, logger } = options;
  const informerOptions = { namespaces, resyncMs, logger };
  const deployments = new Informer<DeploymentResource>(resourceListerWatcher(kube, DEPLOYMENTS), {
    ...informerOptions,
    name: 'deployments',
  });
  const secrets = new Informer<Secret>(resourceListerWatcher(kube, SECRETS), {
    ...informerOptions,
    name: 'secrets',
  });
  const listeners = new Informer<ListenerResource>(resourceListerWatcher(kube, LISTENERS), {
    resyncMs,
    logger,
    name: 'listeners',
  });
  const findRepository = repositoryFinder(service);

  let controller: Controller | undefined;
  const observer = new DeploymentObserver(service, {
    resyncMs,
    onChange: (id) => {
      const key = reconciler.ownerOf(id);
      if (key) controller?.enqueue(key);
    },
    knownIds: () => deploymentIds(deployments),
  });
  const reconciler = new DeploymentReconciler({
    kube,
    service,
    observer,
    deployments,
    // Twice the resync period: the observer refreshes every entry within 1.1 periods.
    resyncMs: 2 * resyncMs,
    logger,
    inputs: {
      secret: (namespace, name) => secrets.get(`${namespace}/${name}`),
      listener: (name) => listeners.get(name),
      repository: findRepository,
    },
  });
  controller = new Controller({
    name: 'deployment',
    watches: [
      watchPrimary(deployments),
      watchSecondary(secrets, (secret) => readersOf(deployments, secret)),
      watchSecondary(listeners, (listener) =>
        deployments
          .list()
          .filter((d) => d.spec.listenerRef?.name === listener.metadata.name)
          .map(keyOf),
      ),
    ],
    reconcile: wakeOnAuthRestored(
      service,
      (key) => reconciler.reconcile(key),
      (key) => controller?.enqueue(key),
    ),
    concurrency: options.concurrency,
    registry: options.registry,
    logger,
  });
  const started = controller;
  return {
    controller: started,
    informers: [deployments, secrets, listeners] as unknown as Informer<KubeObject>[],
    async start() {
      await started.start();
      observer.start();
    },
    async stop() {
      observer.stop();
      await started.stop();
    },
  };
}
