// One classification of a failed service call, for every kind. A refusal is a definite 4xx answer about
// the resource (validation, forbidden, not found): Stalled in the service's own words. Everything else
// (401, 429, 5xx, timeouts, resets, an answer that breaks the contract) is trouble: retried with backoff,
// never Stalled, never remembered as refused, and never a reason to drop a create-pending marker.
import { camelCase } from '../../api/case.ts';
import {
  renderIssues,
  renderPath,
  ServiceContractError,
  ServiceError,
  type ValidationIssue,
} from '../../service/errors.ts';
import { describeOrigin } from '../../service/key-source.ts';
import { networkRetryable } from '../../service/retry.ts';
import type { Problem } from './conditions.ts';

/** 4xx answers that are about the operator or the moment, not the resource. */
const notAboutTheResource: ReadonlySet<number> = new Set([401, 408, 409, 425, 429]);

export function isRefusal(err: unknown): err is ServiceError {
  return (
    err instanceof ServiceError &&
    !(err instanceof ServiceContractError) &&
    !err.retryable &&
    err.status !== undefined &&
    err.status >= 400 &&
    err.status < 500 &&
    !notAboutTheResource.has(err.status)
  );
}

/** A 409 to a create: the name (or compute_id) is taken. What holds it is for the kind to find out. */
export const isNameTaken = (err: unknown): err is ServiceError =>
  err instanceof ServiceError && err.isConflict;

/**
 * A refusal as a Problem in the service's own words. `forbidden` says what the key may not do, for a
 * kind where the bare 403 would not tell a person what to fix.
 */
export function refusalProblem(err: ServiceError, forbidden?: string): Problem {
  if (err.isForbidden)
    return {
      reason: 'Forbidden',
      message: forbidden ? `${forbidden}: ${err.detail}` : err.detail,
      stalled: true,
    };
  if (err.isNotFound) return { reason: 'NotFound', message: err.detail, stalled: true };
  const message = err.isValidation && err.issues?.length ? specIssues(err.issues) : err.detail;
  return { reason: 'InvalidSpec', message, stalled: true };
}

/**
 * A 422's issues in the resource's words: a request body field as the spec path a user writes
 * (`spec.sourceRevisionConfig.imageUri: Field required`), the service's own name for it alongside, so
 * neither side's documentation is a guess away. Query and path parameters stay as the service names them.
 */
export function specIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((issue) => {
      const wire = issue.loc[0] === 'body' ? issue.loc.slice(1) : [];
      if (wire.length === 0) return renderIssues([issue]);
      const spec = renderPath([
        'spec',
        ...wire.map((key) => (typeof key === 'string' ? camelCase(key) : key)),
      ]);
      return `${spec}: ${issue.msg} (the service's ${renderPath(wire)})`;
    })
    .join('; ');
}

/**
 * Why a service call failed when the resource is not the cause. A rejected key says where the key comes
 * from (never the key) and how it gets fixed: a file is read again when it changes, an environment
 * variable only at start.
 */
export function serviceTrouble(err: ServiceError): Problem {
  if (!err.isUnauthorized) return { reason: 'ServiceError', message: err.message, stalled: false };
  const origin = err.keySource;
  const fix =
    origin?.kind === 'file'
      ? 'the operator reads the file again when it changes and resumes once the service accepts the key'
      : origin?.kind === 'env'
        ? 'set the right key and restart the operator'
        : origin?.kind === 'secret'
          ? 'the operator resumes once the Secret holds a key the service accepts'
          : 'configure the right key';
  const from = origin ? ` from ${describeOrigin(origin)}` : '';
  return {
    reason: 'Unauthorized',
    message: `the service rejected the API key${from} (${err.detail}); ${fix}`,
    stalled: false,
  };
}

/**
 * Whether a failed create certainly made nothing: the service answered 4xx (429 and 401 included: refused
 * before acting), or the request never left. A 5xx, a reset or timeout after sending, or a 2xx whose body
 * breaks the contract may come after the service acted.
 */
export function madeNothing(err: unknown): boolean {
  if (!(err instanceof ServiceError) || err instanceof ServiceContractError) return false;
  if (err.attempts === 0) return true;
  if (err.status !== undefined) return err.status >= 400 && err.status < 500;
  return networkRetryable('POST', err);
}
