// Kubernetes objects as controllers see them: how a resource is addressed, the metadata every object
// carries, the few core kinds the runtime reads and writes, and the keys of caches and queues.

export interface ResourceRef {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<Record<string, unknown>>;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface Lease extends KubeObject {
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export const SECRETS: ResourceRef = { group: '', version: 'v1', plural: 'secrets', namespaced: true };
export const CONFIGMAPS: ResourceRef = { group: '', version: 'v1', plural: 'configmaps', namespaced: true };
export const EVENTS: ResourceRef = { group: '', version: 'v1', plural: 'events', namespaced: true };
export const LEASES: ResourceRef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  namespaced: true,
};

/** `namespace/name`, or `name` for cluster-scoped objects: the key of caches and queues. */
export function objectKey(obj: KubeObject): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export function resourcePath(res: ResourceRef, namespace?: string, name?: string, sub?: string): string {
  const base = res.group === '' ? `/api/${res.version}` : `/apis/${res.group}/${res.version}`;
  const ns = res.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name ? `/${encodeURIComponent(name)}` : '';
  return `${base}${ns}/${res.plural}${obj}${sub ? `/${sub}` : ''}`;
}
