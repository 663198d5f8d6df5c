// What an AgentConnection resource knows of its service connection. Pure functions.
import type { AgentConnectionResource, AgentConnectionStatus } from '../../api/agent-connection.ts';
import { annotations } from '../../api/constants.ts';
import type { AgentConnection } from '../../service/wire.ts';
import type { Problem } from '../managed/conditions.ts';

export type ObservedConnection = Omit<AgentConnectionStatus, 'observedGeneration' | 'conditions'>;

/** The connection this resource made: the annotation survives a lost status. */
export const knownConnectionId = (cr: AgentConnectionResource): string | undefined =>
  cr.metadata.annotations?.[annotations.connectionId] || cr.status?.connectionId || undefined;

export const connectPending = (cr: AgentConnectionResource): string | undefined =>
  cr.metadata.annotations?.[annotations.createPending];

export function connectionStatus(c: AgentConnection): ObservedConnection {
  return {
    connectionId: c.id,
    providerId: c.provider_id,
    providerAccountLabel: c.provider_account_label,
    scopes: c.scopes,
    expiresAt: c.expires_at,
    createdBy: c.created_by,
    createdAt: c.created_at,
  };
}

/**
 * A connect call whose outcome was never recorded (the operator stopped, or the answer was lost). The
 * interface has no way to list or read connections, so the operator cannot tell whether it was made;
 * posting again could make a second connection. It stops and asks a person instead.
 */
export function interrupted(cr: AgentConnectionResource, since: string): Problem {
  return {
    reason: 'Interrupted',
    message:
      `a connect call for agent ${cr.spec.agentId} started at ${since} has no recorded outcome, and the ` +
      'service offers no way to look connections up. Check the agent on the service; then set annotation ' +
      `${annotations.connectionId} to the connection's id, or remove annotation ${annotations.createPending} ` +
      'to connect again.',
    stalled: true,
  };
}
