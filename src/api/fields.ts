// Building blocks shared by the kinds: CEL rules, Kubernetes-shaped sub-objects, conditions, columns.
// Everything here is plain zod plus `.meta()` keys that the generator (crd.ts) copies into the CRD.

import { z } from 'zod';
import type { ObjectMeta } from '../runtime/kube-objects.ts';
import { type apiVersion, conditionStatuses, conditionTypes } from './constants.ts';

/** One `x-kubernetes-validations` entry: a CEL rule the apiserver enforces, with the message users see. */
export interface CelRule {
  rule: string;
  message: string;
  /** Where the apiserver reports the error, relative to the schema the rule sits on. */
  fieldPath?: string;
}

export function cel(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

/** For a field that is always present (required or defaulted). */
export function immutable(field: string): CelRule {
  return { rule: 'self == oldSelf', message: `${field} cannot be changed after creation` };
}

/**
 * For an optional field at `path` below the object the rule sits on: it may be neither added,
 * removed nor changed. A transition rule on the field itself would only run when it exists both
 * before and after, so the rule sits on an ancestor and spells out presence with has(): CEL's
 * optional syntax (`self.?a.?b`) would read better, but the apiserver's cost estimator prices it as
 * unbounded and refuses the CRD.
 */
export function immutableWhenSet(path: string, field: string): CelRule {
  const parts = path.split('.');
  const present = (root: string) =>
    parts.map((_, i) => `has(${[root, ...parts.slice(0, i + 1)].join('.')})`).join(' && ');
  return {
    rule: `(${present('self')}) == (${present('oldSelf')}) && (!(${present('self')}) || self.${path} == oldSelf.${path})`,
    message: `${field} cannot be changed after creation (nor set or removed later)`,
    fieldPath: `.${path}`,
  };
}

/**
 * For an optional spec field whose absence means metadata.name: what stays fixed is the effective
 * value, so writing the default out later is allowed. Only a rule on the resource's root can read
 * metadata.name.
 */
export function immutableDefaultingToName(field: string): CelRule {
  const effective = (root: string) =>
    `(has(${root}.spec.${field}) ? ${root}.spec.${field} : ${root}.metadata.name)`;
  return {
    rule: `${effective('self')} == ${effective('oldSelf')}`,
    message: `spec.${field} cannot be changed after creation (when unset, it is metadata.name)`,
    fieldPath: `.spec.${field}`,
  };
}

/** A list whose items are identified by `key`: the apiserver rejects duplicates and merges by key. */
export function listMap(key: string) {
  return { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [key] };
}

/** An object whose inner structure is open (Kubernetes-shaped, passed through as given). */
export function openObject(description: string) {
  return z.record(z.string(), z.unknown()).describe(description);
}

export const timestamp = z.iso.datetime({ offset: true });

/** metadata.name-like reference to an object in the same namespace. */
export const objectName = z.string().min(1).max(253);

export const localObjectReference = (description: string) =>
  z.strictObject({ name: objectName.describe('Name of the referenced object.') }).describe(description);

/** metav1.Condition, as kstatus, Flux, Argo CD and `kubectl wait` read it. */
export const Condition = z
  .strictObject({
    type: z.enum(conditionTypes).describe('Type of the condition: Ready, Synced, Reconciling or Stalled.'),
    status: z.enum(conditionStatuses).describe('Status of the condition: True, False or Unknown.'),
    observedGeneration: z
      .int()
      .min(0)
      .optional()
      .describe('The metadata.generation this condition was computed from.'),
    lastTransitionTime: timestamp.describe('When the condition last changed its status.'),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe('Why the condition is in its status: one CamelCase word.'),
    message: z.string().max(32768).describe('Human-readable details; may be empty.'),
  })
  .describe('One aspect of the current state.');
export type Condition = z.infer<typeof Condition>;

export const conditions = z
  .array(Condition)
  .max(8)
  .optional()
  .meta({ description: 'Conditions of the resource, one per type.', ...listMap('type') });

export const observedGeneration = z
  .int()
  .min(0)
  .optional()
  .describe('The metadata.generation the operator last acted on.');

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description: string;
  priority?: number;
}

/** One column per condition field: `kubectl get` answers "is it ready, and if not, why" without -o yaml. */
const conditionColumn = (
  name: string,
  type: string,
  field: 'status' | 'reason' | 'message',
  description: string,
): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: `.status.conditions[?(@.type=="${type}")].${field}`,
  description,
});

export const readyColumn = conditionColumn('READY', 'Ready', 'status', 'Status of the Ready condition.');

/** Why it is (not) ready: Building, BuildFailed, SecretNotFound, … */
export const reasonColumn = conditionColumn('REASON', 'Ready', 'reason', 'Reason of the Ready condition.');

/** Why the spec is or is not held: ReconcilePaused (paused), SecretNotFound, Unauthorized, … */
export const syncedColumn = conditionColumn(
  'SYNCED',
  'Synced',
  'reason',
  'Reason of the Synced condition (ReconcilePaused while paused).',
);

export const messageColumn: PrinterColumn = {
  ...conditionColumn('MESSAGE', 'Ready', 'message', 'Message of the Ready condition.'),
  priority: 1,
};

export const ageColumn: PrinterColumn = {
  name: 'AGE',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since the resource was created.',
};

/**
 * The columns of a kind: READY, REASON and SYNCED (every kind writes these conditions), the kind's own, AGE;
 * then, in `kubectl get -o wide` only, the kind's wide columns and the Ready message.
 */
export function printerColumns(
  own: readonly PrinterColumn[],
  wide: readonly PrinterColumn[] = [],
): PrinterColumn[] {
  return [
    readyColumn,
    reasonColumn,
    syncedColumn,
    ...own,
    ageColumn,
    ...wide.map((column) => ({ ...column, priority: 1 })),
    messageColumn,
  ];
}

/** Everything the generator needs to know about one kind. */
export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  scope: 'Namespaced' | 'Cluster';
  description: string;
  spec: z.ZodType;
  status: z.ZodType;
  /** Rules on the resource's root: the only place CEL can read metadata.name. */
  rules: readonly CelRule[];
  printerColumns: readonly PrinterColumn[];
}

/** The shape of a custom resource as the controllers read it from the apiserver. */
export interface Resource<Kind extends string, Spec, Status> {
  apiVersion: typeof apiVersion;
  kind: Kind;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}
