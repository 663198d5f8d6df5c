// What a PATCH would change, field by field, under the CR spec's camelCase names: the lines of
// `agent-deploy diff`. Secrets are told apart by name only: no value ever leaves this file.
import { isDeepStrictEqual } from 'node:util';
import { camelCase } from '../api/case.ts';
import type { Deployment, PatchDeploymentRequest } from '../service/wire.ts';

/** One leaf that would change. `from` absent: unset now; `to` absent: unset after. */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
}

/** The secrets a PATCH would send, by name: values are never shown. */
export interface SecretChanges {
  added: string[];
  removed: string[];
  /** Held under the same name with another value, or a value the service does not show. */
  changedOrUnknown: string[];
}

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSet = (v: unknown) => v !== null && v !== undefined;

/**
 * The fields `want` sets differently from `have`. Objects are walked down to their leaves; arrays and
 * scalars are compared whole; null and undefined both mean unset. A field `want` leaves out is not
 * compared (a PATCH leaves it alone), except under a path in `replaced`, which the service replaces
 * whole: there a field only `have` sets is shown removed.
 */
export function diffFields(
  want: Fields,
  have: Fields,
  replaced: readonly string[] = [],
  prefix = '',
): FieldChange[] {
  const whole = replaced.some((p) => prefix === p || prefix.startsWith(`${p}.`));
  const keys = new Set(Object.keys(want));
  if (whole) for (const [k, v] of Object.entries(have)) if (isSet(v)) keys.add(k);
  const changes: FieldChange[] = [];
  for (const key of keys) {
    const field = prefix ? `${prefix}.${key}` : key;
    const [to, from] = [want[key], have[key]];
    if (!isSet(to) && !whole) continue;
    if (isObject(to) && (isObject(from) || !isSet(from))) {
      changes.push(...diffFields(to, isObject(from) ? from : {}, replaced, field));
      continue;
    }
    if (isObject(from) && !isSet(to)) {
      changes.push(...diffFields({}, from, replaced, field));
      continue;
    }
    if (isDeepStrictEqual(to ?? null, from ?? null)) continue;
    changes.push({ field, ...(isSet(from) ? { from } : {}), ...(isSet(to) ? { to } : {}) });
  }
  return changes;
}

/** One object level's snake_case keys in the spec's camelCase; the values pass through. */
const camelKeys = (obj: object | null | undefined): Fields =>
  Object.fromEntries(Object.entries(obj ?? {}).map(([k, v]) => [camelCase(k), v]));

/**
 * The spec's shape of the wire's deployment fields: the levels desiredDeployment renames (the top, the
 * source and revision configs, resource_spec, listener_config, secret references); deeper values
 * (labels, volumes, containers) are the spec's own and pass through. Secrets are left out.
 */
function specShape(wire: {
  source_config?: object | null;
  source_revision_config?: object | null;
  revision_source?: string | null;
  secret_references?: { name: string; secret_name: string; secret_key: string }[] | null;
}): Fields {
  const out: Fields = {};
  if (wire.source_config) {
    const { resource_spec, listener_config, ...rest } = wire.source_config as Fields;
    out.sourceConfig = {
      ...camelKeys(rest),
      ...(isSet(resource_spec) ? { resourceSpec: camelKeys(resource_spec as object) } : {}),
      ...(isSet(listener_config) ? { listenerConfig: camelKeys(listener_config as object) } : {}),
    };
  }
  if (wire.source_revision_config) out.sourceRevisionConfig = camelKeys(wire.source_revision_config);
  if (isSet(wire.revision_source)) out.revisionSource = wire.revision_source;
  if (wire.secret_references)
    out.secretReferences = wire.secret_references.map(({ name, secret_name, secret_key }) => ({
      name,
      secretName: secret_name,
      secretKey: secret_key,
    }));
  return out;
}

/** The service replaces resource_spec (and listener_config) whole: what the patch leaves out goes. */
const replacedWhole = ['sourceConfig.resourceSpec', 'sourceConfig.listenerConfig'];

/** What `patch` would change on `observed`: its fields, and its secrets by name. */
export function patchChanges(
  patch: PatchDeploymentRequest,
  observed: Deployment,
): { changes: FieldChange[]; secrets?: SecretChanges } {
  const have = specShape({ ...observed, revision_source: observed.source });
  const changes = diffFields(specShape(patch), have, replacedWhole);
  return patch.secrets ? { changes, secrets: secretChanges(patch.secrets, observed.secrets) } : { changes };
}

export function secretChanges(
  want: readonly { name: string; value: string }[],
  have: readonly { name: string; value: string }[],
): SecretChanges {
  const held = new Map(have.map((s) => [s.name, s.value]));
  const wanted = new Set(want.map((s) => s.name));
  const sorted = (names: string[]) => [...new Set(names)].sort();
  return {
    added: sorted(want.filter((s) => !held.has(s.name)).map((s) => s.name)),
    removed: sorted(have.filter((s) => !wanted.has(s.name)).map((s) => s.name)),
    changedOrUnknown: sorted(
      want.filter((s) => held.has(s.name) && held.get(s.name) !== s.value).map((s) => s.name),
    ),
  };
}

const shown = (value: unknown) => (isSet(value) ? JSON.stringify(value) : '(unset)');

/** `sourceRevisionConfig.imageUri: "agent:1" → "agent:2"`. */
export const describeChange = (c: FieldChange): string => `${c.field}: ${shown(c.from)} → ${shown(c.to)}`;

/** One line per secret, by name. */
export function describeSecrets(s: SecretChanges): string[] {
  return [
    ...s.added.map((name) => `secrets.${name}: added (value not shown)`),
    ...s.removed.map((name) => `secrets.${name}: removed`),
    ...s.changedOrUnknown.map((name) => `secrets.${name}: changed or unknown (values not shown)`),
  ];
}
