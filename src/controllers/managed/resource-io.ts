// The Kubernetes side of the Listener, AgentConnection and OAuthToken reconcilers: status through the
// subresource (only when it changes), annotations with optimistic concurrency, Events.
import type { Logger } from 'pino';
import { buildEvent, type KubeClient, type KubeObject, type ResourceRef } from '../runtime/kube.ts';
import { type EventSpec, statusPatch, statusUnchanged } from './status.ts';

const component = 'agent-deploy-operator';

export interface Resource extends KubeObject {
  apiVersion: string;
  kind: string;
  status?: object;
}

export class ResourceIO<T extends Resource> {
  readonly #kube: KubeClient;
  readonly #ref: ResourceRef;
  readonly #logger: Logger;

  constructor(kube: KubeClient, ref: ResourceRef, logger: Logger) {
    this.#kube = kube;
    this.#ref = ref;
    this.#logger = logger;
  }

  /** Writes `next` unless it equals the current status. Returns whether it wrote. */
  async writeStatus(cr: T, next: NonNullable<T['status']>): Promise<boolean> {
    if (statusUnchanged(cr.status, next)) return false;
    await this.#kube.mergePatch(
      this.#ref,
      cr.metadata.name,
      cr.metadata.namespace,
      { status: statusPatch(cr.status, next) },
      { subresource: 'status' },
    );
    return true;
  }

  /** A stale view fails with 409 (and the reconcile is retried): two writers cannot both win. */
  async patchAnnotations(cr: T, values: Record<string, string | null>): Promise<T> {
    const updated = await this.#kube.mergePatch<T>(
      this.#ref,
      cr.metadata.name,
      cr.metadata.namespace,
      { metadata: { annotations: values } },
      { resourceVersion: cr.metadata.resourceVersion! },
    );
    return { ...cr, metadata: updated.metadata };
  }

  event(cr: T, event: EventSpec): void {
    const involved = {
      apiVersion: cr.apiVersion,
      kind: cr.kind,
      name: cr.metadata.name,
      ...(cr.metadata.namespace ? { namespace: cr.metadata.namespace } : {}),
      ...(cr.metadata.uid ? { uid: cr.metadata.uid } : {}),
    };
    this.#kube.createEvent(buildEvent(involved, event, component, new Date())).catch((err: Error) => {
      this.#logger.warn({ err: err.message, reason: event.reason }, 'could not record an event');
    });
  }
}
