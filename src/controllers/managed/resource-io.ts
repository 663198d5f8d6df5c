// The Kubernetes side of the shared reconciler: status through the subresource (only when it changes,
// clearing fields that no longer apply), metadata writes with the precondition each one needs, Events.
import type { Logger } from 'pino';
import type { KubeClient } from '../../runtime/kube.ts';
import { buildEvent } from '../../runtime/kube-events.ts';
import type { KubeObject, ResourceRef } from '../../runtime/kube-objects.ts';
import { type EventSpec, statusPatch, statusUnchanged } from './status.ts';

const component = 'agent-deploy-operator';

export interface Resource extends KubeObject {
  apiVersion: string;
  kind: string;
  spec?: unknown;
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
  async writeStatus(cr: T, next: object, signal?: AbortSignal): Promise<boolean> {
    if (statusUnchanged(cr.status, next)) return false;
    await this.#patch(cr, { status: statusPatch(cr.status, next) }, { subresource: 'status', signal });
    return true;
  }

  /**
   * Optimistic concurrency: a stale view fails with 409 (and the reconcile is retried), so two writers
   * cannot both win. Returns the resource with the metadata the apiserver answered.
   */
  async patchMetadata(
    cr: T,
    metadata: { annotations?: Record<string, string | null>; finalizers?: string[] },
    signal?: AbortSignal,
  ): Promise<T> {
    const updated = await this.#patch(
      cr,
      { metadata },
      { resourceVersion: cr.metadata.resourceVersion!, signal },
    );
    return { ...cr, metadata: updated.metadata };
  }

  /**
   * Records what a create or adoption bound the resource to. It must land even if the resource changed
   * meanwhile (a spec edit must not lose the id), so only the uid is a precondition: a resource deleted
   * and made again under the same name is not written.
   */
  async bind(cr: T, annotations: Record<string, string | null>, signal?: AbortSignal): Promise<T> {
    const updated = await this.#patch(cr, { metadata: { uid: cr.metadata.uid, annotations } }, { signal });
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

  #patch(
    cr: T,
    body: Record<string, unknown>,
    options: { resourceVersion?: string; subresource?: 'status'; signal?: AbortSignal | undefined },
  ): Promise<T> {
    return this.#kube.mergePatch<T>(this.#ref, cr.metadata.name, cr.metadata.namespace, body, options);
  }
}
