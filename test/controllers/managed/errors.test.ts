import { describe, expect, it } from 'vitest';
import { outcomeConditions } from '../../../src/controllers/managed/conditions.ts';
import {
  isRefusal,
  madeNothing,
  refusalProblem,
  serviceTrouble,
} from '../../../src/controllers/managed/errors.ts';
import { ServiceContractError, ServiceError } from '../../../src/service/errors.ts';
import type { KeyOrigin } from '../../../src/service/key-source.ts';

const error = (status: number | undefined, retryable = false, keySource?: KeyOrigin, attempts = 1) =>
  new ServiceError({
    status,
    detail: 'the words',
    endpoint: 'POST /x',
    path: '/x',
    retryable,
    attempts,
    keySource,
  });

describe('outcomeConditions', () => {
  it('is Ready with nothing in flight when there is no problem', () => {
    const set = outcomeConditions(undefined, 'bound');
    expect(set.Ready).toEqual({ status: 'True', reason: 'Ready', message: 'bound' });
    expect(set.Synced.status).toBe('True');
    expect(set.Reconciling.status).toBe('False');
    expect(set.Stalled.status).toBe('False');
  });

  it('is Stalled, not Reconciling, for a stalled problem', () => {
    const set = outcomeConditions({ reason: 'Forbidden', message: 'no', stalled: true }, 'bound');
    expect(set.Ready).toEqual({ status: 'False', reason: 'Forbidden', message: 'no' });
    expect(set.Stalled).toEqual({ status: 'True', reason: 'Forbidden', message: 'no' });
    expect(set.Reconciling.status).toBe('False');
  });

  it('is Reconciling, not Stalled, for a problem that may go away', () => {
    const set = outcomeConditions({ reason: 'NotFound', message: 'not yet', stalled: false }, 'bound');
    expect(set.Ready.status).toBe('False');
    expect(set.Reconciling).toEqual({ status: 'True', reason: 'NotFound', message: 'not yet' });
    expect(set.Stalled.status).toBe('False');
  });
});

describe('one classification of service errors', () => {
  it('maps definite 4xx answers to stalled problems in the service words', () => {
    expect(refusalProblem(error(403), 'not allowed')).toEqual({
      reason: 'Forbidden',
      message: 'not allowed: the words',
      stalled: true,
    });
    expect(refusalProblem(error(404))).toMatchObject({
      reason: 'NotFound',
      message: 'the words',
      stalled: true,
    });
    expect(refusalProblem(error(422))).toMatchObject({ reason: 'InvalidSpec', stalled: true });
  });

  it("names a 422's body fields by their spec paths, keeping the service's words and names", () => {
    const refused = new ServiceError({
      status: 422,
      detail: 'source_revision_config.image_uri: Field required; query.limit: too big',
      endpoint: 'POST /v2/deployments',
      path: '/v2/deployments',
      retryable: false,
      attempts: 1,
      issues: [
        { loc: ['body', 'source_revision_config', 'image_uri'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'secrets', 1, 'value'], msg: 'String too long', type: 'string_too_long' },
        { loc: ['body'], msg: 'Field required', type: 'missing' },
        { loc: ['query', 'limit'], msg: 'too big', type: 'less_than_equal' },
      ],
    });
    expect(refusalProblem(refused)).toEqual({
      reason: 'InvalidSpec',
      message:
        "spec.sourceRevisionConfig.imageUri: Field required (the service's source_revision_config.image_uri); " +
        "spec.secrets[1].value: String too long (the service's secrets[1].value); Field required; query.limit: too big",
      stalled: true,
    });
    // Without issues (a 400, or a 422 of another shape): the service's detail as it came.
    expect(refusalProblem(error(422)).message).toBe('the words');
  });

  it('never takes for a refusal what a retry may fix: 401, 409, 429, 5xx, network, a broken contract', () => {
    const contract = new ServiceContractError({
      status: 201,
      endpoint: 'POST /x',
      path: '/x',
      attempts: 1,
      contractIssues: [{ path: 'id', message: 'missing' }],
    });
    for (const err of [
      error(500),
      error(503, true),
      error(429, true),
      error(undefined, true),
      error(401),
      error(409),
      contract,
    ])
      expect(isRefusal(err)).toBe(false);
    expect(isRefusal(new Error('boom'))).toBe(false);
    expect([error(400), error(403), error(404), error(422)].every(isRefusal)).toBe(true);
  });

  it('is certain a create made nothing only for a 4xx, a call never sent, or a request that never left', () => {
    const networkError = (code: string) => Object.assign(new Error(code), { code });
    const net = (code: string) =>
      new ServiceError({
        status: undefined,
        detail: 'd',
        endpoint: 'POST /x',
        path: '/x',
        retryable: true,
        attempts: 1,
        cause: networkError(code),
      });
    expect(madeNothing(error(404))).toBe(true);
    expect(madeNothing(error(429, true))).toBe(true);
    expect(madeNothing(error(401, false, undefined, 0))).toBe(true);
    expect(madeNothing(net('ECONNREFUSED'))).toBe(true);
    expect(madeNothing(error(500))).toBe(false);
    expect(madeNothing(error(502, true))).toBe(false);
    expect(madeNothing(net('ECONNRESET'))).toBe(false);
    expect(madeNothing(new Error('other'))).toBe(false);
  });
});

describe('a rejected key', () => {
  const file: KeyOrigin = { kind: 'file', path: '/etc/agent-deploy/credentials/api-key' };

  it('is never a refusal of the spec, sent or held back locally', () => {
    for (const err of [error(401), error(401, false, file), error(401, false, file, 0)])
      expect(isRefusal(err)).toBe(false);
  });

  it('is Unauthorized, not Stalled, naming the key file and how it gets fixed', () => {
    const problem = serviceTrouble(error(401, false, file));
    expect(problem).toEqual({
      reason: 'Unauthorized',
      message:
        'the service rejected the API key from file /etc/agent-deploy/credentials/api-key (the words); the ' +
        'operator reads the file again when it changes and resumes once the service accepts the key',
      stalled: false,
    });
    // A local refusal reads the same, so status does not flip between the two.
    expect(serviceTrouble(error(401, false, file, 0))).toEqual(problem);
    const set = outcomeConditions(problem, 'bound');
    expect([set.Synced.status, set.Synced.reason, set.Stalled.status]).toEqual([
      'False',
      'Unauthorized',
      'False',
    ]);
  });

  it('names the environment variable, which needs a restart', () => {
    const env: KeyOrigin = { kind: 'env', name: 'AGENT_DEPLOY_API_KEY' };
    expect(serviceTrouble(error(401, false, env)).message).toBe(
      'the service rejected the API key from environment variable AGENT_DEPLOY_API_KEY (the words); set the ' +
        'right key and restart the operator',
    );
  });

  it('leaves other trouble as ServiceError with the whole message', () => {
    expect(serviceTrouble(error(503, true))).toEqual({
      reason: 'ServiceError',
      message: 'POST /x (/x): HTTP 503: the words',
      stalled: false,
    });
  });
});
