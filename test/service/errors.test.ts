import { describe, expect, it } from 'vitest';
import {
  parseErrorBody,
  renderIssues,
  renderPath,
  ServiceContractError,
  ServiceError,
} from '../../src/service/errors.ts';

describe('422 rendering', () => {
  it('drops a leading body, keeps query and path, and indexes arrays', () => {
    const text = renderIssues([
      { loc: ['body', 'source_config', 'integration_id'], msg: 'Field required', type: 'missing' },
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' },
      { loc: ['body', 'secrets', 0, 'name'], msg: 'Field required', type: 'missing' },
      { loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' },
    ]);
    expect(text).toBe(
      'source_config.integration_id: Field required; query.limit: Input should be less than or equal to 100; ' +
        'secrets[0].name: Field required; Invalid JSON',
    );
  });

  it('parses both error body shapes and falls back to the text', () => {
    expect(parseErrorBody('{"detail":"deployment not found"}', 'Not Found')).toEqual({
      detail: 'deployment not found',
    });
    const list = parseErrorBody('{"detail":[{"loc":["query","offset"],"msg":"bad","type":"x"}]}', '');
    expect(list.detail).toBe('query.offset: bad');
    expect(list.issues).toEqual([{ loc: ['query', 'offset'], msg: 'bad', type: 'x' }]);
    const echoed = parseErrorBody(
      '{"detail":[{"loc":["body","secrets",0],"msg":"bad","type":"x","input":{"value":"sk-secret"}}]}',
      '',
    );
    expect(JSON.stringify(echoed)).not.toContain('sk-secret');
    expect(parseErrorBody('<html>bad gateway</html>', 'Bad Gateway').detail).toBe('<html>bad gateway</html>');
    expect(parseErrorBody('', 'Bad Gateway').detail).toBe('Bad Gateway');
    expect(parseErrorBody('x'.repeat(2000), '').detail.length).toBeLessThan(600);
  });

  it('renders paths the same way everywhere', () => {
    expect(renderPath(['resources', 3, 'status'])).toBe('resources[3].status');
    expect(renderPath([])).toBe('(body)');
  });
});

describe('ServiceError', () => {
  const error = new ServiceError({
    status: 404,
    detail: 'deployment not found',
    endpoint: 'DELETE /v2/deployments/{deployment_id}',
    path: '/v2/deployments/123',
    retryable: false,
    attempts: 1,
  });

  it('says where and what in its message and answers the code helpers', () => {
    expect(error.message).toBe(
      'DELETE /v2/deployments/{deployment_id} (/v2/deployments/123): HTTP 404: deployment not found',
    );
    expect(error.isNotFound).toBe(true);
    expect(error.isConflict).toBe(false);
    expect(error.isNetworkError).toBe(false);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ status: 404, endpoint: error.endpoint });
  });

  it('a contract error is a non-retryable ServiceError naming the bad fields', () => {
    const contract = new ServiceContractError({
      status: 200,
      endpoint: 'GET /v2/listeners',
      path: '/v2/listeners',
      attempts: 1,
      contractIssues: [{ path: 'resources[0].id', message: 'Invalid UUID' }],
    });
    expect(contract).toBeInstanceOf(ServiceError);
    expect(contract.retryable).toBe(false);
    expect(contract.name).toBe('ServiceContractError');
    expect(contract.message).toContain('GET /v2/listeners');
    expect(contract.message).toContain('resources[0].id: Invalid UUID');
  });
});
