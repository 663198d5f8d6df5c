// Wires the AgentConnection controller: an informer for AgentConnection resources and the reconciler
// behind a work queue.
import type { AgentConnectionResource } from '../../api/agent-connection.ts';
import { Controller, watchPrimary } from '../../runtime/controller.ts';
import { Informer, resourceListerWatcher } from '../../runtime/informer.ts';
import type { KubeObject } from '../../runtime/kube.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { AGENT_CONNECTIONS, AgentConnectionReconciler } from './reconciler.ts';

export function agentConnectionController(options: ControllerContext): OperatorController {
  const { kube, service, namespaces, resyncMs, logger } = options;
  const connections = new Informer<AgentConnectionResource>(resourceListerWatcher(kube, AGENT_CONNECTIONS), {
    namespaces,
    resyncMs,
    logger,
    name: 'agentconnections',
  });
  const reconciler = new AgentConnectionReconciler({ kube, service, connections, resyncMs, logger });
  const controller = new Controller({
    name: 'agentconnection',
    watches: [watchPrimary(connections)],
    reconcile: (key) => reconciler.reconcile(key),
    concurrency: options.concurrency,
    registry: options.registry,
    logger,
  });
  return {
    controller,
    informers: [connections] as unknown as Informer<KubeObject>[],
    start: () => controller.start(),
    stop: () => controller.stop(),
  };
}
