import { describe, expect, it } from 'vitest';
import type { AgentConnectionResource } from '../../../src/api/agent-connection.ts';
import {
  connectionStatus,
  interrupted,
  knownConnectionId,
} from '../../../src/controllers/agent-connection/connection.ts';

const cr = (annotations?: Record<string, string>, connectionId?: string): AgentConnectionResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentConnection',
  metadata: { name: 'c', namespace: 'n', ...(annotations ? { annotations } : {}) },
  spec: { agentId: 'agent-1', oauthTokenId: 'tok-1' },
  ...(connectionId ? { status: { connectionId } } : {}),
});

describe('agent connection', () => {
  it('knows its id from the annotation first, then status', () => {
    expect(knownConnectionId(cr({ 'deploy.agents.dev/connection-id': 'a' }, 'b'))).toBe('a');
    expect(knownConnectionId(cr(undefined, 'b'))).toBe('b');
    expect(knownConnectionId(cr())).toBeUndefined();
  });

  it('mirrors the connection in status', () => {
    expect(
      connectionStatus({
        id: 'c1',
        agent_id: 'agent-1',
        oauth_token_id: 'tok-1',
        provider_id: 'github',
        provider_account_label: 'me',
        scopes: ['repo'],
        expires_at: '2030-01-01T00:00:00Z',
        created_by: 'u1',
        created_at: '2026-01-01T00:00:00Z',
      }),
    ).toEqual({
      connectionId: 'c1',
      providerId: 'github',
      providerAccountLabel: 'me',
      scopes: ['repo'],
      expiresAt: '2030-01-01T00:00:00Z',
      createdBy: 'u1',
      createdAt: '2026-01-01T00:00:00Z',
    });
  });

  it('an interrupted connect is Stalled and tells how to go on', () => {
    const problem = interrupted(cr(), '2026-01-01T00:00:00Z');
    expect(problem).toMatchObject({ reason: 'Interrupted', stalled: true });
    expect(problem.message).toContain('deploy.agents.dev/connection-id');
    expect(problem.message).toContain('deploy.agents.dev/create-pending');
  });
});
