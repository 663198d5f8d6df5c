// The Listener controller (cluster-scoped): Listener resources → the reconciler.
import type { ListenerResource } from '../../api/listener.ts';
import { LISTENERS } from '../resources.ts';
import { singleKindController } from '../single-kind.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { ListenerReconciler } from './reconciler.ts';

export function listenerController(context: ControllerContext): OperatorController {
  const { kube, service, resyncMs, logger } = context;
  return singleKindController<ListenerResource>(
    context,
    { name: 'listener', resource: LISTENERS },
    (listeners) => {
      const reconciler = new ListenerReconciler({ kube, service, listeners, resyncMs, logger });
      return (key) => reconciler.reconcile(key);
    },
  );
}
