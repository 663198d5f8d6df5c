// Error answers in the real service's shapes (DESIGN.md §5): {"detail": "..."} for rule failures,
// and FastAPI's validation list {"detail": [{type, loc, msg, input, ctx?}]} with status 422.
import type { z } from 'zod';

export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** An answer other than success; thrown by handlers before they change anything. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string | ValidationIssue[];
  constructor(status: number, detail: string | ValidationIssue[]) {
    super(typeof detail === 'string' ? detail : 'validation failed');
    this.status = status;
    this.detail = detail;
  }
}

export const notFound = (what: string): ApiError => new ApiError(404, `${what} not found`);
export const badRequest = (detail: string): ApiError => new ApiError(400, detail);
export const conflict = (detail: string): ApiError => new ApiError(409, detail);
export const unprocessable = (issues: ValidationIssue[]): ApiError => new ApiError(422, issues);

/** FastAPI's wording for the zod issues a request can produce; the loc is prefixed with where it came from. */
export function issuesFromZod(error: z.ZodError, where: 'body' | 'query', input: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const loc = [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    const at = valueAt(input, issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const input = valueAt(at, [key]);
        issues.push({
          type: 'extra_forbidden',
          loc: [...loc, key],
          msg: 'Extra inputs are not permitted',
          input,
        });
      }
    } else if (issue.code === 'invalid_type' && at === undefined) {
      issues.push({ type: 'missing', loc, msg: 'Field required', input: null });
    } else if (issue.code === 'invalid_type') {
      issues.push({
        type: `${issue.expected}_type`,
        loc,
        msg: `Input should be a valid ${issue.expected}`,
        input: at,
      });
    } else if (issue.code === 'invalid_value') {
      const expected = expectedList(issue.values);
      issues.push({ type: 'enum', loc, msg: `Input should be ${expected}`, input: at, ctx: { expected } });
    } else {
      issues.push({ type: 'value_error', loc, msg: issue.message, input: at });
    }
  }
  return issues;
}

/** Pydantic's way of listing allowed values: 'a', 'b' or 'c'. */
export function expectedList(values: readonly unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
