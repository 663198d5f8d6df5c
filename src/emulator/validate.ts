// The rules a deployment request must pass, as pure checks that throw an ApiError before anything changes.
// Shape problems are 422 lists (FastAPI's shape); conflicts with the rules of the service are 400 details.
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import {
  immutableSourceConfigFields,
  type Source,
  SourceConfigInput,
  SourceRevisionConfigInput,
} from '../service/wire.ts';
import { type Mode, sourcesByMode } from './config.ts';
import { badRequest, issuesFromZod, unprocessable, type ValidationIssue } from './errors.ts';
import type { EmulatedSourceConfig } from './profile-wire.ts';
import type { Seed } from './seed.ts';

/** Parses a JSON body against a request schema; a missing body is FastAPI's "body: Field required". */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body === undefined || body === null) {
    throw unprocessable([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw unprocessable(issuesFromZod(parsed.error, 'body', body));
  return parsed.data;
}

export function assertSourceAvailable(source: Source, mode: Mode, field = 'source'): void {
  const allowed = sourcesByMode[mode];
  if (!allowed.includes(source)) {
    throw badRequest(
      `${field} ${source} is not available on a ${mode} installation (available: ${allowed.join(', ')})`,
    );
  }
}

type FullSourceConfig = Required<{ [K in keyof EmulatedSourceConfig]: EmulatedSourceConfig[K] | null }>;
type FullRevisionConfig = Required<{
  [K in keyof SourceRevisionConfigInput]: SourceRevisionConfigInput[K] | null;
}>;

const fill = <T extends object>(keys: string[], value: object): T =>
  Object.fromEntries(keys.map((k) => [k, (value as Record<string, unknown>)[k] ?? null])) as T;

/** Every field present, null when unset: how the service answers. */
export const fullSourceConfig = (c: EmulatedSourceConfig): FullSourceConfig =>
  fill(Object.keys(SourceConfigInput.shape), c);
export const fullRevisionConfig = (c: SourceRevisionConfigInput): FullRevisionConfig =>
  fill(Object.keys(SourceRevisionConfigInput.shape), c);

/** PATCH merges field by field: absent keeps the stored value, null clears it, a value replaces it. */
export function merge<T extends object>(stored: T, patch: Partial<T> | null | undefined): T {
  const out = { ...stored };
  for (const [k, v] of Object.entries(patch ?? {}))
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** As merge, except that a null leaves the `kept` fields alone once they hold a value. */
export function mergeKeeping<T extends object>(
  stored: T,
  patch: Partial<T> | null | undefined,
  kept: readonly (keyof T)[],
): T {
  const out = merge(stored, patch);
  for (const k of kept) if (out[k] === null && stored[k] != null) out[k] = stored[k];
  return out;
}

const required: Record<
  Source,
  {
    source_config: (keyof EmulatedSourceConfig)[];
    source_revision_config: (keyof SourceRevisionConfigInput)[];
  }
> = {
  codehost: {
    source_config: ['integration_id', 'repo_url'],
    source_revision_config: ['repo_ref', 'graph_config_path'],
  },
  external_docker: { source_config: [], source_revision_config: ['image_uri'] },
  internal_docker: { source_config: [], source_revision_config: ['image_uri'] },
  internal_source: { source_config: [], source_revision_config: ['source_tarball_path'] },
  internal_template: { source_config: [], source_revision_config: ['graph_config_path'] },
};

/** Per-source required fields (null or empty counts as missing), answered as one 422 list. */
export function assertRequiredFields(
  source: Source,
  sc: EmulatedSourceConfig,
  src: SourceRevisionConfigInput,
): void {
  const issues: ValidationIssue[] = [];
  const check = (group: 'source_config' | 'source_revision_config', values: Record<string, unknown>) => {
    for (const field of required[source][group] as string[]) {
      const v = values[field];
      if (v === undefined || v === null || v === '') {
        issues.push({
          type: 'missing',
          loc: ['body', group, field],
          msg: `Field required for source ${source}`,
          input: v ?? null,
        });
      }
    }
  };
  check('source_config', sc);
  check('source_revision_config', src);
  if (issues.length > 0) throw unprocessable(issues);
}

/** codehost: the integration must exist and repo_url must be one of its repositories. */
export function assertCodehostRepo(sc: EmulatedSourceConfig, integrations: Seed['integrations']): void {
  const integration = integrations.find((i) => i.id === sc.integration_id);
  if (!integration) throw badRequest(`integration ${sc.integration_id} not found`);
  if (!integration.repos.some((r) => r.url === sc.repo_url)) {
    throw badRequest(`repo_url ${sc.repo_url} is not a repository of integration ${integration.id}`);
  }
}

/** secret_references apply only to external_docker; null or [] is accepted on every source. */
export function assertSecretReferences(source: Source, refs: readonly unknown[] | null | undefined): void {
  if (refs && refs.length > 0 && source !== 'external_docker') {
    throw badRequest(`secret_references apply only to source external_docker, not ${source}`);
  }
}

export function assertUniqueSecretNames(secrets: readonly { name: string }[] | null | undefined): void {
  const seen = new Set<string>();
  for (const { name } of secrets ?? []) {
    if (seen.has(name)) throw badRequest(`duplicate secret name ${name}`);
    seen.add(name);
  }
}

/** Immutable source_config fields may be sent on PATCH only with the value they already have. */
export function assertImmutablesUnchanged(
  stored: EmulatedSourceConfig,
  patch: EmulatedSourceConfig | null | undefined,
): void {
  for (const field of immutableSourceConfigFields) {
    const next = patch?.[field];
    if (next !== undefined && !isDeepStrictEqual(next, stored[field] ?? null)) {
      throw badRequest(`source_config.${field} cannot be changed after creation`);
    }
  }
}
