// Failed API calls: the apiserver's Status object as an Error, and the statuses controllers act on.

/** A failed API call, from the apiserver's Status object. */
export class KubeError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly details: unknown;

  constructor(status: number, reason: string, message: string, details?: unknown) {
    super(message);
    this.name = 'KubeError';
    this.status = status;
    this.reason = reason;
    this.details = details;
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof KubeError && err.status === 404;
export const isConflict = (err: unknown): boolean => err instanceof KubeError && err.status === 409;
/** 410: the resourceVersion (or continue token) is too old; relist. */
export const isGone = (err: unknown): boolean => err instanceof KubeError && err.status === 410;

/** Maps an error response (a Status object, or anything else) to a KubeError. */
export function statusError(httpStatus: number, body: string): KubeError {
  try {
    const status = JSON.parse(body) as {
      code?: number;
      reason?: string;
      message?: string;
      details?: unknown;
    };
    return new KubeError(
      status.code ?? httpStatus,
      status.reason ?? '',
      status.message ?? body,
      status.details,
    );
  } catch {
    return new KubeError(httpStatus, '', body.slice(0, 500) || `HTTP ${httpStatus}`);
  }
}
