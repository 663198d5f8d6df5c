// One informer per resource kind, shared by every controller that watches it (client-go's
// SharedInformerFactory): a kind two controllers need is listed, watched and cached once.
import type { Logger } from 'pino';
import { Informer, metadataListerWatcher, resourceListerWatcher } from './informer.ts';
import type { KubeClient } from './kube.ts';
import type { KubeObject, ResourceRef } from './kube-objects.ts';

export interface SharedInformersOptions {
  /** Namespaces to watch; undefined: all. Cluster-scoped kinds ignore it. */
  namespaces?: string[] | undefined;
  /** Namespaces watched besides those, for one resource (by plural and group). */
  alsoWatch?: ((ref: ResourceRef) => string[]) | undefined;
  resyncMs: number;
  logger?: Logger | undefined;
}

export class SharedInformers {
  readonly #kube: KubeClient;
  readonly #options: SharedInformersOptions;
  readonly #informers = new Map<string, Informer<KubeObject>>();

  constructor(kube: KubeClient, options: SharedInformersOptions) {
    this.#kube = kube;
    this.#options = options;
  }

  /** Whole objects of a kind. */
  resource<T extends KubeObject>(ref: ResourceRef): Informer<T> {
    return this.#get(ref, 'objects') as unknown as Informer<T>;
  }

  /** Identities only (PartialObjectMetadata): for kinds whose data is read on demand, if at all. */
  metadata(ref: ResourceRef): Informer<KubeObject> {
    return this.#get(ref, 'metadata');
  }

  all(): Informer<KubeObject>[] {
    return [...this.#informers.values()];
  }

  #get(ref: ResourceRef, shape: 'objects' | 'metadata'): Informer<KubeObject> {
    const key = `${ref.plural}.${ref.group}/${shape}`;
    let informer = this.#informers.get(key);
    if (!informer) {
      const source =
        shape === 'metadata'
          ? metadataListerWatcher(this.#kube, ref)
          : resourceListerWatcher(this.#kube, ref);
      const { namespaces, alsoWatch, resyncMs, logger } = this.#options;
      const watched = namespaces && [...new Set([...namespaces, ...(alsoWatch?.(ref) ?? [])])];
      informer = new Informer<KubeObject>(source, {
        ...(ref.namespaced && watched ? { namespaces: watched } : {}),
        resyncMs,
        ...(logger ? { logger } : {}),
        name: ref.plural,
      });
      this.#informers.set(key, informer);
    }
    return informer;
  }
}
