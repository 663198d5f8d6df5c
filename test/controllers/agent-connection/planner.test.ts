import { describe, expect, it } from 'vitest';
import type { AgentConnectionResource } from '../../../src/api/agent-connection.ts';
import { planConnection } from '../../../src/controllers/agent-connection/planner.ts';

const cr: AgentConnectionResource = {
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentConnection',
  metadata: { name: 'c', namespace: 'n' },
  spec: { agentId: 'agent-1', oauthTokenId: 'tok-1' },
};

describe('planConnection', () => {
  it('connects once: create, then nothing once a connection is recorded', () => {
    expect(planConnection(cr, undefined, {})).toEqual({
      action: 'create',
      request: { oauth_token_id: 'tok-1' },
    });
    expect(planConnection(cr, undefined, { connection: { connectionId: 'c1' } })).toMatchObject({
      action: 'nothing',
      target: { connectionId: 'c1' },
    });
  });

  it('does not post again after a connect whose outcome is unknown: Interrupted, stalled', () => {
    const plan = planConnection(cr, undefined, { pendingSince: '2026-11-23T00:00:00Z' });
    expect(plan).toMatchObject({ action: 'cannot', problem: { reason: 'Interrupted', stalled: true } });
  });

  it('stalls in the service words when it answers 409', () => {
    expect(planConnection(cr, undefined, { nameTaken: 'already connected' })).toMatchObject({
      action: 'cannot',
      problem: { reason: 'AlreadyExists', message: 'already connected', stalled: true },
    });
  });
});
