// The AgentConnection controller: AgentConnection resources → the shared reconciler.
import type { AgentConnectionResource } from '../../api/agent-connection.ts';
import { managedController } from '../managed/controller.ts';
import { AGENT_CONNECTIONS } from '../resources.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { agentConnectionKind } from './kind.ts';

export function agentConnectionController(context: ControllerContext): OperatorController {
  return managedController(context, {
    name: 'agentconnection',
    informer: context.informers.resource<AgentConnectionResource>(AGENT_CONNECTIONS),
    kind: agentConnectionKind(context.resyncMs),
  });
}
