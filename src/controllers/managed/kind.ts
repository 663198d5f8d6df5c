// What a kind gives the shared reconciler: how it reads its inputs, how it observes the service, its
// planner, and the calls that carry a plan out (crossplane-runtime's ExternalClient, with the planner
// made a pure function so `agent-deploy diff` can call it too). Everything else (finalizer, create-pending
// marker, binding, status writes, events, error classification, requeue) is the reconciler's.
import type { ResourceRef } from '../../runtime/kube-objects.ts';
import type { ServiceClient } from '../../service/client.ts';
import type { WorkspaceConnection } from '../workspace/connection.ts';
import type { ConditionSet, Problem } from './conditions.ts';
import type { ObservePlan, Plan } from './plan.ts';
import type { Resource } from './resource-io.ts';

/** How a reconcile reaches the service: the resource's workspace (its own client), and the signal. */
export interface Via {
  workspace: WorkspaceConnection;
  /** The workspace's client. */
  service: ServiceClient;
  signal: AbortSignal;
}

export interface ObserveContext<External> extends Via {
  /** The id the resource is bound to: its annotation or status, or a create not recorded yet. */
  id: string | undefined;
  /** What this process created or adopted for the resource and has not seen recorded yet. */
  made: External | undefined;
  /** A create-pending marker is on the resource and that create's outcome is unknown. */
  pending: boolean;
  /** Something is in flight on the service: observe fresh, not from a cache. */
  polling: boolean;
  /** spec.managementPolicy is Observe: nothing is created, so look the object up rather than plan a create. */
  observing: boolean;
}

export interface Outcome<External, Inputs> {
  /** What the service holds, as last seen. Absent: nothing was observed this time. */
  target?: External;
  problem?: Problem;
  inputs?: Inputs;
  /** Fields a PATCH or create this reconcile sent and the service accepted. */
  sent?: string[];
  /** The service was asked this time: what it did not show no longer exists. */
  looked?: boolean;
  /** `target` is mirrored for a resource with spec.managementPolicy Observe. */
  observing?: boolean;
}

export interface StatusView {
  /** Every observed status field: a field it lacks no longer applies and is cleared. */
  observed: Record<string, unknown>;
  conditions: ConditionSet;
}

export interface ManagedKind<T extends Resource, Inputs, Observed, External, Create, Patch> {
  readonly ref: ResourceRef;
  /** The log field that names a resource of this kind, e.g. `deployment`. */
  readonly logKey: string;
  /** The annotation that binds a resource to its service object; unset: status alone holds the id. */
  readonly idAnnotation?: string;
  /**
   * Creates are guarded by the create-pending marker: written before the call, removed with the id
   * written after it, so a create whose answer was lost is found (or reported), not repeated. `endpoint`
   * is the create's endpoint, asked of the auth gate before the marker is written.
   */
  readonly guardedCreate?: { endpoint: string };
  /** How long a refused create or patch is not sent again while the request stays the same. */
  readonly refusalMemoMs: number;
  /** Reuse a whole outcome for one generation this long (kinds whose every look is a service call). */
  readonly outcomeMemoMs?: number;
  /** What a 403 means for this resource, when the service's words alone would not say. */
  forbidden?(cr: T): string;

  knownId(cr: T): string | undefined;
  /** Deleting the resource deletes the service object: the finalizer is there exactly then. */
  deletes(cr: T): boolean;
  resolve(cr: T, via: Via): Promise<{ inputs: Inputs } | { problem: Problem }>;
  observe(cr: T, context: ObserveContext<External>): Promise<Observed>;
  /** After the service answered a create with 409: what holds the name, for the planner to judge. */
  observeNameTaken(cr: T, observed: Observed, detail: string, via: Via): Promise<Observed>;
  plan(cr: T, inputs: Inputs, observed: Observed): Plan<Create, Patch, External>;
  /**
   * The planner of a resource with spec.managementPolicy Observe: no inputs (they are only needed to
   * write), and never a write. Kinds without the policy leave it out.
   */
  planObserved?(cr: T, observed: Observed): ObservePlan<External>;
  create(cr: T, request: Create, via: Via): Promise<External>;
  update(target: External, patch: Patch, via: Via): Promise<External>;
  /** Deletes the service object: 'deleting' while the service has not finished (it deletes asynchronously). */
  remove(cr: T, context: ObserveContext<External>): Promise<'gone' | 'deleting'>;
  idOf(external: External): string;
  /** How events name the service object, e.g. `service deployment web (dep_1)`. */
  describe(external: External): string;
  /** `via` is absent when the resource's workspace may not act (then the outcome has no target). */
  status(cr: T, outcome: Outcome<External, Inputs>, via: Via | undefined): Promise<StatusView>;
  /** The resource is gone: drop what is held for it. */
  forget?(key: string): void;
  /** The service no longer has this object: drop what is held for it. */
  forgetExternal?(id: string, via: Via): void;
}
