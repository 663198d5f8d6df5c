// Reads the Secrets that resources reference, and no other. Clusters hold thousands of Secrets nobody
// here refers to (Helm keeps every release in one), so the operator never lists their data: an informer
// of Secret identities (metadataListerWatcher: namespace, name, uid, resourceVersion) says which exist
// and at which version and wakes the resources that reference one; the data of a referenced Secret is
// read with one GET and kept, keyed by resourceVersion, only while a resource references it.
import type { Informer } from '../runtime/informer.ts';
import type { KubeClient } from '../runtime/kube.ts';
import { KubeError } from '../runtime/kube-errors.ts';
import type { KubeObject } from '../runtime/kube-objects.ts';

export type SecretLookup = { data: Record<string, string> } | { missing: 'NotFound' | 'Forbidden' };

interface Held {
  resourceVersion: string | undefined;
  data: Record<string, string>;
}

export class SecretReader {
  readonly #kube: KubeClient;
  readonly #identities: Informer<KubeObject>;
  readonly #held = new Map<string, Held>();
  readonly #reading = new Map<string, Promise<SecretLookup>>();

  constructor(kube: KubeClient, identities: Informer<KubeObject>) {
    this.#kube = kube;
    this.#identities = identities;
  }

  /** The Secret's base64 data, or why there is none. One GET per new resourceVersion, shared by callers. */
  read(namespace: string, name: string): Promise<SecretLookup> {
    const key = `${namespace}/${name}`;
    const identity = this.#identities.get(key);
    if (!identity) {
      this.#held.delete(key);
      return Promise.resolve({ missing: 'NotFound' });
    }
    const held = this.#held.get(key);
    if (held && held.resourceVersion === identity.metadata.resourceVersion)
      return Promise.resolve({ data: held.data });
    let reading = this.#reading.get(key);
    if (!reading) {
      reading = this.#get(key, namespace, name).finally(() => this.#reading.delete(key));
      this.#reading.set(key, reading);
    }
    return reading;
  }

  /** Drops what is held for a Secret no resource references any more. */
  forget(key: string): void {
    this.#held.delete(key);
  }

  /** How many Secrets' data is held: for tests and metrics. */
  get size(): number {
    return this.#held.size;
  }

  async #get(key: string, namespace: string, name: string): Promise<SecretLookup> {
    try {
      const secret = await this.#kube.getSecret(namespace, name);
      const data = secret.data ?? {};
      this.#held.set(key, { resourceVersion: secret.metadata.resourceVersion, data });
      return { data };
    } catch (err) {
      this.#held.delete(key);
      if (err instanceof KubeError && err.status === 404) return { missing: 'NotFound' };
      if (err instanceof KubeError && err.status === 403) return { missing: 'Forbidden' };
      throw err;
    }
  }
}
