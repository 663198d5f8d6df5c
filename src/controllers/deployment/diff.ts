// The minimal PATCH that makes the service hold what the spec asks (DESIGN.md §3 step 5).
// Only fields the spec sets are managed: a field the service fills in by itself is not drift.
import { isDeepStrictEqual } from 'node:util';
import { camelCase } from '../../api/case.ts';
import {
  type Deployment,
  immutableSourceConfigFields,
  type PatchDeploymentRequest,
  type SourceConfigInput,
  unclearableSourceConfigFields,
} from '../../service/wire.ts';
import type { DesiredDeployment } from './desired.ts';

export interface DeploymentDiff {
  /** undefined when the service already holds the spec: never send a PATCH that changes nothing. */
  patch?: PatchDeploymentRequest;
  /** Fields the spec sets differently from the service that the service will not change. */
  immutable: string[];
}

const withoutNulls = (obj: object | null | undefined): Record<string, unknown> =>
  Object.fromEntries(Object.entries(obj ?? {}).filter(([, v]) => v !== null && v !== undefined));

/** Every field `desired` sets has the same value in `observed`. */
function holds(desired: Record<string, unknown>, observed: Record<string, unknown>): boolean {
  return Object.entries(desired).every(([k, v]) => isDeepStrictEqual(v, observed[k]));
}

export function diffDeployment(
  desired: DesiredDeployment,
  observed: Deployment,
  secrets: { digest: string; lastSentDigest?: string },
): DeploymentDiff {
  const want = desired.create;
  const patch: PatchDeploymentRequest = {};
  const immutable: string[] = [];

  const haveConfig = withoutNulls(observed.source_config);
  const changedConfig: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(want.source_config)) {
    const immutableField = (immutableSourceConfigFields as readonly string[]).includes(field);
    // An immutable field the service leaves out of its answers (the hosted service never returns
    // listener_config) was set at create and cannot be compared: its absence is not drift to stall on.
    if (immutableField && !(field in (observed.source_config ?? {}))) continue;
    const have = field === 'resource_spec' ? withoutNulls(haveConfig[field] as object) : haveConfig[field];
    const same =
      field === 'resource_spec'
        ? holds(value as Record<string, unknown>, have as Record<string, unknown>)
        : isDeepStrictEqual(value, have);
    if (same) continue;
    if (immutableField) immutable.push(`sourceConfig.${camelCase(field)}`);
    // resource_spec is replaced whole on the service: send all of it.
    else changedConfig[field] = value;
  }
  if (Object.keys(changedConfig).length > 0) patch.source_config = changedConfig as SourceConfigInput;

  const revisionConfig = want.source_revision_config;
  if (!holds(revisionConfig, withoutNulls(observed.source_revision_config))) {
    patch.source_revision_config = revisionConfig;
    if (desired.revisionSource) patch.revision_source = desired.revisionSource;
  }

  if (secretsDiffer(want.secrets, observed.secrets, secrets)) patch.secrets = want.secrets;

  if (want.secret_references) {
    const have = (observed.secret_references ?? []).map(({ name, secret_name, secret_key }) => ({
      name,
      secret_name,
      secret_key,
    }));
    if (!isDeepStrictEqual(sortByName(want.secret_references), sortByName(have)))
      patch.secret_references = want.secret_references;
  }

  return Object.keys(patch).length > 0 ? { patch, immutable } : { immutable };
}

const sortByName = <T extends { name: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => a.name.localeCompare(b.name));

/**
 * Secrets are in sync when the service holds the same names and either echoes the same values or,
 * where it does not echo them, the digest of what we last sent is that of the spec.
 */
function secretsDiffer(
  want: { name: string; value: string }[],
  have: { name: string; value: string }[],
  { digest, lastSentDigest }: { digest: string; lastSentDigest?: string },
): boolean {
  const w = sortByName(want);
  const h = sortByName(have).map(({ name, value }) => ({ name, value }));
  if (
    !isDeepStrictEqual(
      w.map((s) => s.name),
      h.map((s) => s.name),
    )
  )
    return true;
  if (isDeepStrictEqual(w, h)) return false;
  return digest !== lastSentDigest;
}

/**
 * Fields the service holds that the spec does not set and the service will not clear: said once in
 * Synced's message, never patched (there is nothing a PATCH could do).
 */
export function keptFields(desired: DesiredDeployment, observed: Deployment): string[] {
  const want = desired.create.source_config as Record<string, unknown>;
  const have = (observed.source_config ?? {}) as Record<string, unknown>;
  return unclearableSourceConfigFields
    .filter((field) => want[field] === undefined && have[field] !== null && have[field] !== undefined)
    .map((field) => `sourceConfig.${camelCase(field)}`);
}
