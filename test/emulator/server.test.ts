import { describe, expect, it } from 'vitest';
import { bodyLimit } from '../../src/emulator/server.ts';
import { createBody, useEmulator } from './support.ts';

const t = useEmulator({ stepMs: 0 });
const json = { 'content-type': 'application/json' };

describe('bad input never crashes nor half-writes', () => {
  it('answers malformed JSON with a 422 json_invalid', async () => {
    const res = await t.api.raw('POST', '/v2/deployments', { body: '{"name": "x",', headers: json });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body'] });
  });

  it('answers a missing body, a JSON array and a non-JSON content type', async () => {
    const none = await t.api.raw('POST', '/v2/deployments', { headers: json });
    expect(none.status).toBe(422);
    expect(none.body.detail).toEqual([
      { type: 'missing', loc: ['body'], msg: 'Field required', input: null },
    ]);
    expect((await t.api.raw('POST', '/v2/deployments', { body: '[1,2]', headers: json })).status).toBe(422);
    const text = await t.api.raw('POST', '/v2/deployments', {
      body: 'name=x',
      headers: { 'content-type': 'text/csv' },
    });
    expect(text.status).toBe(415);
    expect(typeof text.body.detail).toBe('string');
  });

  it('answers an oversized body with 413', async () => {
    const huge = createBody('huge', 'internal_docker', {
      secrets: [{ name: 'BIG', value: 'x'.repeat(bodyLimit) }],
    });
    const res = await t.api.post('/v2/deployments', huge);
    expect(res.status).toBe(413);
    expect(res.body.detail).toContain(String(bodyLimit));
    expect((await t.admin.get('/_emulator/state')).body.deployments).toEqual([]);
  });

  it('does not let a prototype key through', async () => {
    const res = await t.api.raw('POST', '/v2/deployments', {
      body: JSON.stringify(createBody('proto')).replace('{', '{"__proto__": {"polluted": true},'),
      headers: json,
    });
    expect(res.status).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers unknown paths and methods in FastAPI shape and stays up', async () => {
    expect(await t.api.get('/v3/whatever')).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    expect((await t.api.raw('PUT', '/v2/deployments')).status).toBe(404);
    expect((await t.api.get('/v2/deployments')).status).toBe(200);
  });

  it('accepts an empty JSON body on DELETE', async () => {
    const d = (await t.api.post('/v2/deployments', createBody('del'))).body;
    expect((await t.api.raw('DELETE', `/v2/deployments/${d.id}`, { headers: json })).status).toBe(204);
  });
});
