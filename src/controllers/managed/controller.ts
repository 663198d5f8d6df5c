// Wiring of one managed kind: its informer (and any secondary ones), the shared reconciler behind a work
// queue, and the wake-up of resources held back while the service rejected the API key.
import { Controller, type Watched, watchPrimary, watchSecondary } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { objectKey } from '../../runtime/kube-objects.ts';
import { CLUSTER_WORKSPACES, WORKSPACES } from '../resources.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { byWorkspace } from '../workspace/registry.ts';
import { wakeOnAuthRestored } from './auth-wake.ts';
import type { ManagedKind } from './kind.ts';
import { ManagedReconciler } from './reconciler.ts';
import type { Resource } from './resource-io.ts';

export interface ManagedControllerOptions<T extends Resource, I, O, X, C, P> {
  name: string;
  informer: Informer<T>;
  kind: ManagedKind<T, I, O, X, C, P>;
  /** Other kinds whose changes wake resources of this one. */
  secondary?: Watched[];
  /** Enqueues keys from outside the informers (e.g. the batched observer); given the controller. */
  bindEnqueue?: (enqueue: (key: string) => void) => void;
}

export function managedController<T extends Resource, I, O, X, C, P>(
  context: ControllerContext,
  options: ManagedControllerOptions<T, I, O, X, C, P>,
): OperatorController {
  const { kube, workspaces, logger } = context;
  workspaces.track(options.informer);
  const reconciler = new ManagedReconciler(options.kind, {
    kube,
    workspaces,
    informer: options.informer,
    logger,
  });
  const controller: Controller = new Controller({
    name: options.name,
    watches: [
      watchPrimary(options.informer),
      // Watched for their caches only (a resource asks whether its workspace exists): a resource wakes
      // when the workspace controller has judged a workspace, not on the raw event before that.
      watchSecondary(context.informers.resource(WORKSPACES), () => []),
      watchSecondary(context.informers.resource(CLUSTER_WORKSPACES), () => []),
      ...(options.secondary ?? []),
    ],
    reconcile: wakeOnAuthRestored(
      workspaces,
      (key, signal) => reconciler.reconcile(key, signal),
      (key) => controller.enqueue(key),
    ),
    concurrency: context.concurrency,
    registry: context.registry,
    logger,
  });
  options.bindEnqueue?.((key) => controller.enqueue(key));
  workspaces.onChange((workspace) => {
    for (const cr of options.informer.byIndex(byWorkspace, workspace)) controller.enqueue(objectKey(cr));
  });
  return {
    controller,
    start: () => controller.start(),
    stop: () => controller.stop(),
  };
}
