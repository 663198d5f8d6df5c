// Wires the Listener controller: an informer for Listener resources (cluster-scoped) and the reconciler
// behind a work queue.
import type { ListenerResource } from '../../api/listener.ts';
import { Controller, watchPrimary } from '../../runtime/controller.ts';
import { Informer, resourceListerWatcher } from '../../runtime/informer.ts';
import type { KubeObject } from '../../runtime/kube.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { LISTENERS, ListenerReconciler } from './reconciler.ts';

export function listenerController(options: ControllerContext): OperatorController {
  const { kube, service, resyncMs, logger } = options;
  const listeners = new Informer<ListenerResource>(resourceListerWatcher(kube, LISTENERS), {
    resyncMs,
    logger,
    name: 'listeners',
  });
  const reconciler = new ListenerReconciler({ kube, service, listeners, resyncMs, logger });
  const controller = new Controller({
    name: 'listener',
    watches: [watchPrimary(listeners)],
    reconcile: (key) => reconciler.reconcile(key),
    concurrency: options.concurrency,
    registry: options.registry,
    logger,
  });
  return {
    controller,
    informers: [listeners] as unknown as Informer<KubeObject>[],
    start: () => controller.start(),
    stop: () => controller.stop(),
  };
}
