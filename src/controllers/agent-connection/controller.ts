// The AgentConnection controller: AgentConnection resources → the reconciler.
import type { AgentConnectionResource } from '../../api/agent-connection.ts';
import { AGENT_CONNECTIONS } from '../resources.ts';
import { singleKindController } from '../single-kind.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { AgentConnectionReconciler } from './reconciler.ts';

export function agentConnectionController(context: ControllerContext): OperatorController {
  const { kube, service, resyncMs, logger } = context;
  return singleKindController<AgentConnectionResource>(
    context,
    { name: 'agentconnection', resource: AGENT_CONNECTIONS },
    (connections) => {
      const reconciler = new AgentConnectionReconciler({ kube, service, connections, resyncMs, logger });
      return (key) => reconciler.reconcile(key);
    },
  );
}
