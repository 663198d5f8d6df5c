// Wires the Deployment controller: informers for Deployment resources, the Secrets (identities only)
// and Listeners they refer to, the batched observer of the service, and the reconciler behind a work
// queue. Indexes answer "who refers to this" without scanning every resource on each event.
import type { DeploymentResource } from '../../api/deployment.ts';
import type { ListenerResource } from '../../api/listener.ts';
import { Controller, watchPrimary, watchSecondary } from '../../runtime/controller.ts';
import { Informer, metadataListerWatcher, resourceListerWatcher } from '../../runtime/informer.ts';
import { type KubeObject, objectKey, SECRETS } from '../../runtime/kube.ts';
import { wakeOnAuthRestored } from '../auth-wake.ts';
import { DEPLOYMENTS, LISTENERS } from '../resources.ts';
import { SecretReader } from '../secret-reader.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { repositoryFinder } from './inputs.ts';
import { observerMetrics } from './metrics.ts';
import { DeploymentObserver } from './observer.ts';
import { DeploymentReconciler, keyOf, knownId } from './reconciler.ts';

/** Indexes of the Deployment resources: who reads a Secret, names a Listener, holds a service deployment. */
const bySecret = 'secret';
const byListener = 'listener';
const byDeploymentId = 'deploymentId';

/** `namespace/name` of every Secret the resource reads. */
function secretKeys(d: DeploymentResource): string[] {
  const ns = d.metadata.namespace;
  const names = [
    ...(d.spec.secretsFrom ?? []).map((s) => s.secretRef.name),
    ...(d.spec.secrets ?? []).flatMap((s) => (s.valueFrom ? [s.valueFrom.secretKeyRef.name] : [])),
  ];
  return [...new Set(names)].map((name) => `${ns}/${name}`);
}

export function deploymentController(options: ControllerContext): OperatorController {
  const { kube, service, namespaces, resyncMs, logger } = options;
  const informerOptions = { namespaces, resyncMs, logger };
  const deployments = new Informer<DeploymentResource>(resourceListerWatcher(kube, DEPLOYMENTS), {
    ...informerOptions,
    name: 'deployments',
  });
  deployments.addIndex(bySecret, secretKeys);
  deployments.addIndex(byListener, (d) => (d.spec.listenerRef ? [d.spec.listenerRef.name] : []));
  deployments.addIndex(byDeploymentId, (d) => {
    const id = knownId(d);
    return id ? [id] : [];
  });
  const readersOf = (index: string, value: string) => deployments.byIndex(index, value).map(keyOf);
  // Identities only: the data of the few Secrets a resource references is read on demand.
  const secrets = new Informer<KubeObject>(metadataListerWatcher(kube, SECRETS), {
    ...informerOptions,
    name: 'secrets',
  });
  const secretReader = new SecretReader(kube, secrets);
  // Nothing is kept for a Secret no resource references any more (indexes are current when handlers run).
  const forgetUnread = (old: DeploymentResource) => {
    for (const key of secretKeys(old))
      if (deployments.byIndex(bySecret, key).length === 0) secretReader.forget(key);
  };
  deployments.addHandlers({ onUpdate: forgetUnread, onDelete: forgetUnread });
  secrets.addHandlers({ onDelete: (s) => secretReader.forget(objectKey(s)) });
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
      for (const key of readersOf(byDeploymentId, id)) controller?.enqueue(key);
    },
    liveIds: () => deployments.indexValues(byDeploymentId),
    onRefresh: observerMetrics(options.registry),
  });
  const reconciler = new DeploymentReconciler({
    kube,
    service,
    observer,
    deployments,
    owners: (id) => deployments.byIndex(byDeploymentId, id),
    // Twice the resync period: the observer refreshes every entry within 1.1 periods.
    resyncMs: 2 * resyncMs,
    logger,
    inputs: {
      secret: (namespace, name) => secretReader.read(namespace, name),
      listener: (name) => listeners.get(name),
      repository: findRepository,
    },
  });
  controller = new Controller({
    name: 'deployment',
    watches: [
      watchPrimary(deployments),
      watchSecondary(secrets, (secret) => readersOf(bySecret, objectKey(secret))),
      watchSecondary(listeners, (listener) => readersOf(byListener, listener.metadata.name)),
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
