import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/runtime/kube-events.ts';

describe('buildEvent', () => {
  it('makes a core/v1 Event about the object, in its namespace', () => {
    const event = buildEvent(
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'ns', uid: 'u1' },
      { type: 'Warning', reason: 'Failed', message: 'it broke' },
      'agent-deploy',
      new Date('2026-01-02T03:04:05.678Z'),
    );
    expect(event.metadata.namespace).toBe('ns');
    expect(event.metadata.name).toMatch(/^cm\.[0-9a-f]+$/);
    expect(event).toMatchObject({
      involvedObject: { kind: 'ConfigMap', name: 'cm', uid: 'u1' },
      type: 'Warning',
      reason: 'Failed',
      source: { component: 'agent-deploy' },
      firstTimestamp: '2026-01-02T03:04:05.678Z',
      count: 1,
    });
  });
});
