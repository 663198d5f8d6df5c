// The Listener controller (cluster-scoped): Listener resources → the shared reconciler.
import type { ListenerResource } from '../../api/listener.ts';
import { managedController } from '../managed/controller.ts';
import { LISTENERS } from '../resources.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { listenerKind } from './kind.ts';

export function listenerController(context: ControllerContext): OperatorController {
  return managedController(context, {
    name: 'listener',
    informer: context.informers.resource<ListenerResource>(LISTENERS),
    kind: listenerKind(context.resyncMs),
  });
}
