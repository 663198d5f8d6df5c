// core/v1 Events, the ones `kubectl describe` shows under an object.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from './kube-objects.ts';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** A core/v1 Event about `involved`. */
export function buildEvent(
  involved: InvolvedObject,
  event: { type: 'Normal' | 'Warning'; reason: string; message: string; action?: string },
  component: string,
  now: Date,
): KubeObject & Record<string, unknown> {
  const time = now.toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    // Named like client-go's recorder: the object's name and a unique time-based suffix.
    metadata: { name: `${involved.name}.${eventSuffix(now)}`, namespace: involved.namespace ?? 'default' },
    involvedObject: involved,
    type: event.type,
    reason: event.reason,
    message: event.message,
    action: event.action ?? event.reason,
    source: { component },
    reportingComponent: component,
    reportingInstance: component,
    firstTimestamp: time,
    lastTimestamp: time,
    eventTime: null,
    count: 1,
  };
}

function eventSuffix(now: Date): string {
  return `${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`;
}
