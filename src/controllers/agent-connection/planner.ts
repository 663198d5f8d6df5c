// What the operator does for an AgentConnection resource: connect the agent to the token once, and keep
// the answer. The interface has no GET (or list) of a connection, so the resource's own record is the
// only observation. A pure function.
import type { AgentConnectionResource } from '../../api/agent-connection.ts';
import type { ConnectAgentRequest } from '../../service/wire.ts';
import type { Plan } from '../managed/plan.ts';
import { interrupted, type ObservedConnection } from './connection.ts';

export interface ConnectionObservation {
  /** The connection the resource holds, as far as it was recorded. */
  connection?: ObservedConnection;
  /** A connect call whose outcome is unknown: the create-pending marker's time. */
  pendingSince?: string;
  /** The service answered the connect with 409; its words. */
  nameTaken?: string;
}

export type ConnectionPlan = Plan<ConnectAgentRequest, never, ObservedConnection>;

export function planConnection(
  cr: AgentConnectionResource,
  _inputs: unknown,
  observed: ConnectionObservation,
): ConnectionPlan {
  if (observed.connection) return { action: 'nothing', target: observed.connection };
  if (observed.nameTaken !== undefined)
    return {
      action: 'cannot',
      problem: { reason: 'AlreadyExists', message: observed.nameTaken, stalled: true },
    };
  // Posting again could make a second connection: a person decides.
  if (observed.pendingSince !== undefined)
    return { action: 'cannot', problem: interrupted(cr, observed.pendingSince) };
  return { action: 'create', request: { oauth_token_id: cr.spec.oauthTokenId } };
}
