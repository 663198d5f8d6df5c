// The AgentConnection kind for the shared reconciler: one connect call, guarded by the create-pending
// marker; a resource that carries a connection id never calls the service again.
import type { AgentConnectionResource } from '../../api/agent-connection.ts';
import { annotations } from '../../api/constants.ts';
import type { ConnectAgentRequest } from '../../service/wire.ts';
import { outcomeConditions } from '../managed/conditions.ts';
import type { ManagedKind } from '../managed/kind.ts';
import { previousObserved } from '../managed/status.ts';
import { AGENT_CONNECTIONS } from '../resources.ts';
import {
  connectionStatus,
  connectPending,
  knownConnectionId,
  type ObservedConnection,
} from './connection.ts';
import { type ConnectionObservation, planConnection } from './planner.ts';

export type ConnectionKind = ManagedKind<
  AgentConnectionResource,
  undefined,
  ConnectionObservation,
  ObservedConnection,
  ConnectAgentRequest,
  never
>;

export function agentConnectionKind(resyncMs: number): ConnectionKind {
  return {
    ref: AGENT_CONNECTIONS,
    logKey: 'agentConnection',
    idAnnotation: annotations.connectionId,
    guardedCreate: { endpoint: 'POST /v2/auth/agents/{agent_id}/connections' },
    // A refused connect is tried again once per resync period, not on every event.
    refusalMemoMs: resyncMs / 2,
    knownId: knownConnectionId,
    deletes: () => false,
    resolve: async () => ({ inputs: undefined }),

    async observe(cr, { id, made, pending }) {
      if (id) {
        const previous = previousObserved(cr.status) as ObservedConnection;
        // An id set by hand (after an interrupted connect) comes with nothing else that can be read.
        const connection = made ?? (previous.connectionId === id ? previous : { connectionId: id });
        return { connection };
      }
      const since = connectPending(cr);
      return pending && since !== undefined ? { pendingSince: since } : {};
    },

    observeNameTaken: async (_cr, observed, detail) => ({ ...observed, nameTaken: detail }),
    plan: planConnection,
    create: async (cr, request, { service, signal }) =>
      connectionStatus(await service.connectAgent(cr.spec.agentId, request, { signal })),
    update: () => Promise.reject(new Error('a connection is never patched')),
    remove: async () => 'gone' as const,
    idOf: (c) => c.connectionId!,
    describe: (c) => `connection ${c.connectionId}`,

    async status(cr, { target, problem }) {
      const observed = target ?? previousObserved(cr.status);
      const ready = `agent ${cr.spec.agentId} is connected to token ${cr.spec.oauthTokenId} (connection ${target?.connectionId})`;
      return { observed, conditions: outcomeConditions(problem, ready) };
    },
  };
}
