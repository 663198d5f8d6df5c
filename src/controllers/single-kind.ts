// Wiring for a controller that watches only its own kind: one informer, one reconciler, one queue.
import { Controller, type Reconcile, watchPrimary } from '../runtime/controller.ts';
import { Informer, resourceListerWatcher } from '../runtime/informer.ts';
import type { KubeObject, ResourceRef } from '../runtime/kube.ts';
import { wakeOnAuthRestored } from './auth-wake.ts';
import type { ControllerContext, OperatorController } from './types.ts';

export function singleKindController<T extends KubeObject>(
  context: ControllerContext,
  kind: { name: string; resource: ResourceRef },
  makeReconcile: (informer: Informer<T>) => Reconcile,
): OperatorController {
  const { kube, resyncMs, logger } = context;
  const informer = new Informer<T>(resourceListerWatcher(kube, kind.resource), {
    ...(kind.resource.namespaced ? { namespaces: context.namespaces } : {}),
    resyncMs,
    logger,
    name: kind.resource.plural,
  });
  const controller: Controller = new Controller({
    name: kind.name,
    watches: [watchPrimary(informer)],
    reconcile: wakeOnAuthRestored(context.service, makeReconcile(informer), (key) => controller.enqueue(key)),
    concurrency: context.concurrency,
    registry: context.registry,
    logger,
  });
  return {
    controller,
    informers: [informer] as unknown as Informer<KubeObject>[],
    start: () => controller.start(),
    stop: () => controller.stop(),
  };
}
