// Query parameters of the list operations, parsed the way the real (FastAPI) service does: every
// problem is collected and answered as one 422 list; then paging over a stable order.
import type { Page } from '../service/wire.ts';
import { interfaceDeploymentTypes } from '../service/wire.ts';
import { expectedList, unprocessable, type ValidationIssue } from './errors.ts';

export type RawQuery = Record<string, string | string[] | undefined>;

/** Default page size of every list (the interface fixes it only for deployments). */
export const defaultLimit = 20;
export const maxLimit = 100;

export interface Paging {
  limit: number;
  offset: number;
}

export interface DeploymentFilters {
  name_contains?: string;
  status?: string;
  deployment_ids?: string[];
  deployment_type?: string;
  image_version?: string;
  remote_reconciled?: boolean;
  tag_value_ids?: string[];
}

export interface RevisionFilters {
  status?: string[];
  remote_reconciled?: boolean;
}

/** A repeated parameter counts once, with its last value (as FastAPI does for scalar parameters). */
const single = (raw: RawQuery, name: string): string | undefined => {
  const v = raw[name];
  return Array.isArray(v) ? v.at(-1) : v;
};

const csv = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function int(
  raw: RawQuery,
  name: string,
  min: number,
  max: number | null,
  fallback: number,
  issues: ValidationIssue[],
) {
  const input = single(raw, name);
  if (input === undefined) return fallback;
  const loc = ['query', name];
  if (!/^\s*[+-]?\d+\s*$/.test(input)) {
    issues.push({
      type: 'int_parsing',
      loc,
      msg: 'Input should be a valid integer, unable to parse string as an integer',
      input,
    });
    return fallback;
  }
  const value = Number(input);
  if (value < min) {
    issues.push({
      type: 'greater_than_equal',
      loc,
      msg: `Input should be greater than or equal to ${min}`,
      input,
      ctx: { ge: min },
    });
  } else if (max !== null && value > max) {
    issues.push({
      type: 'less_than_equal',
      loc,
      msg: `Input should be less than or equal to ${max}`,
      input,
      ctx: { le: max },
    });
  }
  return value;
}

const truthy = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const falsy = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function bool(raw: RawQuery, name: string, issues: ValidationIssue[]): boolean | undefined {
  const input = single(raw, name);
  if (input === undefined) return undefined;
  const v = input.trim().toLowerCase();
  if (truthy.has(v)) return true;
  if (falsy.has(v)) return false;
  issues.push({
    type: 'bool_parsing',
    loc: ['query', name],
    msg: 'Input should be a valid boolean, unable to interpret input',
    input,
  });
  return undefined;
}

function done<T>(value: T, issues: ValidationIssue[]): T {
  if (issues.length > 0) throw unprocessable(issues);
  return value;
}

function paging(raw: RawQuery, issues: ValidationIssue[]): Paging {
  return {
    limit: int(raw, 'limit', 1, maxLimit, defaultLimit, issues),
    offset: int(raw, 'offset', 0, null, 0, issues),
  };
}

export function parsePaging(raw: RawQuery): Paging {
  const issues: ValidationIssue[] = [];
  return done(paging(raw, issues), issues);
}

/** `types` are the deployment_type values the profile knows (the interface's by default). */
export function parseDeploymentQuery(
  raw: RawQuery,
  types: readonly string[] = interfaceDeploymentTypes,
): Paging & DeploymentFilters {
  const issues: ValidationIssue[] = [];
  const query: Paging & DeploymentFilters = paging(raw, issues);
  const text = (name: 'name_contains' | 'status' | 'image_version') => {
    const v = single(raw, name);
    if (v !== undefined) query[name] = v;
  };
  text('name_contains');
  text('status');
  text('image_version');
  const ids = single(raw, 'deployment_ids');
  if (ids !== undefined) query.deployment_ids = csv(ids);
  const tags = single(raw, 'tag_value_ids');
  if (tags !== undefined) query.tag_value_ids = csv(tags);
  const type = single(raw, 'deployment_type');
  if (type !== undefined) {
    if (types.includes(type)) query.deployment_type = type;
    else {
      const expected = expectedList(types);
      issues.push({
        type: 'enum',
        loc: ['query', 'deployment_type'],
        msg: `Input should be ${expected}`,
        input: type,
        ctx: { expected },
      });
    }
  }
  const reconciled = bool(raw, 'remote_reconciled', issues);
  if (reconciled !== undefined) query.remote_reconciled = reconciled;
  return done(query, issues);
}

export function parseRevisionQuery(raw: RawQuery): Paging & RevisionFilters {
  const issues: ValidationIssue[] = [];
  const query: Paging & RevisionFilters = paging(raw, issues);
  const status = single(raw, 'status');
  if (status !== undefined) query.status = csv(status);
  const reconciled = bool(raw, 'remote_reconciled', issues);
  if (reconciled !== undefined) query.remote_reconciled = reconciled;
  return done(query, issues);
}

/** `offset` in the answer is where the next page starts: the request's offset plus the number returned. */
export function paginate<T>(items: readonly T[], { limit, offset }: Paging): Page<T> {
  const resources = items.slice(offset, offset + limit);
  return { resources, offset: offset + resources.length };
}
