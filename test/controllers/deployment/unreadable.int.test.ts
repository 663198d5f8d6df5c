// One service deployment whose entry in the batched answer breaks the interface, behind a real HTTP proxy
// in front of the emulator: its resource says so in Synced (naming the field), is never Stalled and never
// made again; the other resource read in the same call stays Ready; both recover once the entry is whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { type HttpStub, startStub } from '../../service/http-stub.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, apply, emulatorState, getCr, setUp, waitFor } from './support.ts';

const spec = { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'agent:1' } };
const forwarded = ['x-api-key', 'x-tenant-id', 'content-type', 'accept'];

describe('a service deployment whose entry breaks the interface', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let proxy: HttpStub;
  let operator: OperatorProcess;
  /** The deployment name whose list entries the proxy garbles, if any. */
  let garbled: string | undefined;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('unreadable'));
    proxy = await startStub((req, res) => {
      const headers = Object.fromEntries(
        forwarded.flatMap((h) => (req.headers[h] ? [[h, String(req.headers[h])]] : [])),
      );
      void fetch(`${emu.url}${req.url}`, {
        method: req.method,
        headers,
        ...(req.body === '' ? {} : { body: req.body }),
      }).then(async (answer) => {
        let text = await answer.text();
        if (garbled && req.method === 'GET' && req.url.startsWith('/v2/deployments?') && answer.ok) {
          const page = JSON.parse(text) as { resources: { name: string; created_at: string }[] };
          for (const d of page.resources) if (d.name === garbled) d.created_at = 'yesterday';
          text = JSON.stringify(page);
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
    operator = startOperator({ serviceUrl: proxy.url, namespaces: [namespace], resync: '2s' });
  });
  afterAll(async () => {
    await operator.kill();
    await proxy.close();
    await emu.close();
  });

  it('is trouble in Synced naming the field, never gone nor Stalled; the other stays Ready', async () => {
    await apply(namespace, agentDeployment('steady', spec));
    await apply(namespace, agentDeployment('victim', spec));
    await waitFor(namespace, 'steady', 'condition=Ready');
    await waitFor(namespace, 'victim', 'condition=Ready');

    garbled = 'victim';
    await waitFor(namespace, 'victim', 'condition=Synced=False');
    const victim = await getCr(namespace, 'victim');
    const condition = (type: string) =>
      (victim.status.conditions as { type: string; status: string; reason: string; message: string }[]).find(
        (c) => c.type === type,
      )!;
    expect(condition('Synced').reason).toBe('ServiceError');
    expect(condition('Synced').message).toMatch(/GET \/v2\/deployments .*resources\[\d\]\.created_at/);
    expect(condition('Stalled').status).toBe('False');
    expect(condition('Reconciling').status).toBe('True');
    await waitFor(namespace, 'steady', 'condition=Ready');
    expect((await emulatorState(emu)).deployments.filter((d) => d.name === 'victim')).toHaveLength(1);

    garbled = undefined;
    await waitFor(namespace, 'victim', 'condition=Synced');
    await waitFor(namespace, 'victim', 'condition=Ready');
    expect((await emulatorState(emu)).deployments.filter((d) => d.name === 'victim')).toHaveLength(1);
    expect(operator.logs.join('\n')).not.toContain('creating it again');
  });
});
