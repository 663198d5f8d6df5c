// Typed errors of the service client. Messages name the endpoint template and what went wrong;
// they never carry request headers, so the API key cannot leak through them.
import type { z } from 'zod';
import type { KeyOrigin } from './key-source.ts';
import { ErrorBody } from './wire.ts';

export interface ServiceErrorInit {
  /** HTTP status, or undefined when no response arrived (network error, timeout). */
  status: number | undefined;
  detail: string;
  /** Endpoint template, e.g. `GET /v2/deployments/{deployment_id}/revisions`. */
  endpoint: string;
  /** The concrete path that was called (base path prefix excluded, query excluded). */
  path: string;
  /** Whether the failure is transient, i.e. trying again later may succeed. */
  retryable: boolean;
  /** Attempts made before giving up; 0: not sent, refused locally because the key was rejected before. */
  attempts: number;
  /** The service's Retry-After, in milliseconds, when it sent one. */
  retryAfterMs?: number | undefined;
  /** The 422 issues as sent, for callers that map them to fields. */
  issues?: readonly ValidationIssue[] | undefined;
  /** On a 401: where the rejected key was read (a path or a variable name, never the key). */
  keySource?: KeyOrigin | undefined;
  cause?: unknown;
}

export interface ValidationIssue {
  loc: readonly (string | number)[];
  msg: string;
  type: string;
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly status: number | undefined;
  readonly detail: string;
  readonly endpoint: string;
  readonly path: string;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly retryAfterMs: number | undefined;
  readonly issues: readonly ValidationIssue[] | undefined;
  readonly keySource: KeyOrigin | undefined;

  constructor(init: ServiceErrorInit) {
    const what =
      init.status === undefined
        ? 'no response'
        : init.attempts === 0
          ? `HTTP ${init.status} earlier, not sent again`
          : `HTTP ${init.status}`;
    super(`${init.endpoint} (${init.path}): ${what}: ${init.detail}`, { cause: init.cause });
    this.status = init.status;
    this.detail = init.detail;
    this.endpoint = init.endpoint;
    this.path = init.path;
    this.retryable = init.retryable;
    this.attempts = init.attempts;
    this.retryAfterMs = init.retryAfterMs;
    this.issues = init.issues;
    this.keySource = init.keySource;
  }

  get isNetworkError(): boolean {
    return this.status === undefined;
  }
  get isBadRequest(): boolean {
    return this.status === 400;
  }
  get isUnauthorized(): boolean {
    return this.status === 401;
  }
  get isForbidden(): boolean {
    return this.status === 403;
  }
  get isNotFound(): boolean {
    return this.status === 404;
  }
  get isConflict(): boolean {
    return this.status === 409;
  }
  get isValidation(): boolean {
    return this.status === 422;
  }
  get isRateLimited(): boolean {
    return this.status === 429;
  }
  get isServerError(): boolean {
    return this.status !== undefined && this.status >= 500;
  }

  toJSON() {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      detail: this.detail,
      endpoint: this.endpoint,
      path: this.path,
      retryable: this.retryable,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
      keySource: this.keySource,
    };
  }
}

export interface ContractIssue {
  /** Path of the offending field in the response body, e.g. `resources[0].status`. */
  path: string;
  message: string;
}

/** A 2xx response whose body does not match the interface. Not retryable: asking again gets the same. */
export class ServiceContractError extends ServiceError {
  override name = 'ServiceContractError';
  readonly contractIssues: readonly ContractIssue[];

  constructor(init: Omit<ServiceErrorInit, 'detail' | 'retryable'> & { contractIssues: ContractIssue[] }) {
    const shown = init.contractIssues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    if (init.contractIssues.length > 5) shown.push(`… ${init.contractIssues.length - 5} more`);
    super({ ...init, retryable: false, detail: `response breaks the contract at ${shown.join('; ')}` });
    this.contractIssues = init.contractIssues;
  }
}

/** `resources[0].source_config.integration_id`: the path notation used in every message. */
export function renderPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}

/** The issues of a failed parse; `at` is where the parsed part sits in the body (an item of a list). */
export function contractIssues(error: z.ZodError, at: readonly PropertyKey[] = []): ContractIssue[] {
  return error.issues.map((i) => ({ path: renderPath([...at, ...i.path]), message: i.message }));
}

/**
 * One readable line from a 422 list: `source_config.integration_id: field required; query.limit: …`.
 * A leading `body` is dropped (the request body is what a caller thinks in); `query` and `path` stay,
 * so a parameter is told apart from a body field of the same name.
 */
export function renderIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((i) => {
      const loc = i.loc[0] === 'body' ? i.loc.slice(1) : i.loc;
      return loc.length === 0 ? i.msg : `${renderPath(loc)}: ${i.msg}`;
    })
    .join('; ');
}

const maxDetailChars = 500;

/** The detail of an error response: the service's `detail` when it has the known shape, else the text. */
export function parseErrorBody(
  text: string,
  statusText: string,
): { detail: string; issues?: ValidationIssue[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    if (trimmed === '') return { detail: statusText || 'no detail' };
    return {
      detail: trimmed.length > maxDetailChars ? `${trimmed.slice(0, maxDetailChars)}…` : trimmed,
    };
  }
  const body = ErrorBody.safeParse(json);
  if (!body.success) return { detail: text.slice(0, maxDetailChars) };
  const { detail } = body.data;
  if (typeof detail === 'string') return { detail };
  // Only loc, msg and type are kept: FastAPI echoes the offending `input`, which may be a secret value.
  const issues = detail.map(({ loc, msg, type }) => ({ loc, msg, type }));
  return { detail: renderIssues(issues), issues };
}
