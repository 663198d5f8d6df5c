// What a Listener resource asks of the service, and how an observed service listener compares with it.
// Pure functions.
import { isDeepStrictEqual } from 'node:util';
import type { ListenerResource, ListenerStatus } from '../../api/listener.ts';
import type { CreateListenerRequest, Listener, PatchListenerRequest } from '../../service/wire.ts';
import type { Problem } from '../managed/conditions.ts';

export const computeIdOf = (cr: ListenerResource): string => cr.spec.computeId ?? cr.metadata.name;

type ComputeConfig = PatchListenerRequest['compute_config'];

/** The compute_config the spec asks for; undefined when the spec leaves it to the service. */
export function desiredComputeConfig(cr: ListenerResource): ComputeConfig | undefined {
  const config = cr.spec.computeConfig;
  return config ? { k8s_namespaces: config.k8sNamespaces ?? null } : undefined;
}

export function createRequest(cr: ListenerResource): CreateListenerRequest {
  return {
    compute_type: cr.spec.computeType,
    compute_id: computeIdOf(cr),
    compute_config: desiredComputeConfig(cr) ?? { k8s_namespaces: null },
  };
}

/**
 * The PATCH that makes the service hold the spec's compute_config, or undefined when it already does
 * (or the listener is only bound, not registered, by this resource): never a PATCH that changes nothing.
 */
export function configPatch(cr: ListenerResource, observed: Listener): PatchListenerRequest | undefined {
  const desired = desiredComputeConfig(cr);
  if (!cr.spec.register || !desired) return undefined;
  const current = { k8s_namespaces: observed.compute_config.k8s_namespaces ?? null };
  return isDeepStrictEqual(desired, current) ? undefined : { compute_config: desired };
}

/** A listener bound by id whose compute_id contradicts an explicit spec.computeId. */
export function identityProblem(cr: ListenerResource, observed: Listener): Problem | undefined {
  const wanted = cr.spec.computeId;
  if (wanted === undefined || wanted === observed.compute_id) return undefined;
  return {
    reason: 'InvalidSpec',
    message: `spec.computeId is ${wanted}, but the bound listener ${observed.id} has compute_id ${observed.compute_id} on the service`,
    stalled: true,
  };
}

export function observedStatus(l: Listener): Omit<ListenerStatus, 'observedGeneration' | 'conditions'> {
  return { listenerId: l.id, version: l.version, createdAt: l.created_at, updatedAt: l.updated_at };
}
