import { describe, expect, it } from 'vitest';
import { isConflict, isGone, KubeError, statusError } from '../../src/runtime/kube-errors.ts';

describe('statusError', () => {
  it('reads a Status object', () => {
    const err = statusError(
      409,
      JSON.stringify({
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        message: 'the object has been modified',
      }),
    );
    expect(err).toBeInstanceOf(KubeError);
    expect([err.status, err.reason, err.message]).toEqual([409, 'Conflict', 'the object has been modified']);
    expect(isConflict(err)).toBe(true);
    expect(isGone(err)).toBe(false);
  });

  it('keeps the HTTP status when the body is not a Status', () => {
    const err = statusError(502, '<html>bad gateway</html>');
    expect([err.status, err.reason, err.message]).toEqual([502, '', '<html>bad gateway</html>']);
  });
});
