// `agent-deploy operator --leader-elect` as separate processes on one real Lease: one reconciles, the
// other stands by (live and ready); SIGKILL hands over within the lease duration, SIGTERM at once, and
// a leader that loses its lease exits non-zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/controlplane/ports.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { microTime } from '../../../src/runtime/leader.ts';
import {
  agentDeployment,
  apply,
  emulatorState,
  setUp,
  waitFor,
} from '../../controllers/deployment/support.ts';
import { kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';

const lease = 'agent-deploy-operator';
const spec = { source: 'internal_docker', sourceRevisionConfig: { imageUri: 'agent:1' } };

describe('agent-deploy operator --leader-elect', () => {
  let namespace: string;
  let emu: RunningEmulator;
  const started: OperatorProcess[] = [];

  /** An operator campaigning for the Lease (default timings: 15 s / 10 s / 2 s), with its health port. */
  async function candidate(podName: string) {
    const port = await freePort();
    const operator = startOperator({
      serviceUrl: emu.url,
      namespaces: [namespace],
      extraArgs: ['--leader-elect', '--leader-election-namespace', namespace, '--health-port', String(port)],
      env: { POD_NAME: podName },
    });
    started.push(operator);
    await operator.waitForLog(/operator starting/);
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: res.status, text: await res.text() };
    };
    return { operator, get };
  }
  const holder = async () =>
    (await kubectl(['get', 'lease', '-n', namespace, lease, '-o', 'jsonpath={.spec.holderIdentity}'])).stdout;
  const led = (op: OperatorProcess) => op.logs.some((l) => /became leader/.test(l));
  const reconciled = (op: OperatorProcess) => op.logs.some((l) => /caches synced/.test(l));

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('leader'));
  });
  afterAll(async () => {
    await Promise.all(started.map((op) => op.kill('SIGKILL')));
    await emu.close();
  });

  let a: Awaited<ReturnType<typeof candidate>>;
  let b: Awaited<ReturnType<typeof candidate>>;

  it('runs the controllers in one of two processes; the standby stays live and ready', async () => {
    a = await candidate('op-a');
    await a.operator.waitForLog(/caches synced/);
    b = await candidate('op-b');
    await apply(namespace, agentDeployment('first', spec));
    await waitFor(namespace, 'first', 'condition=Ready');

    expect(await holder()).toBe('op-a');
    expect((await emulatorState(emu)).calls['POST /v2/deployments']).toBe(1);
    expect(led(b.operator) || reconciled(b.operator)).toBe(false);
    // Kubernetes must not restart or unready a healthy standby.
    expect(await b.get('/healthz')).toMatchObject({ status: 200 });
    expect(await b.get('/readyz')).toMatchObject({ status: 200 });
    expect((await b.get('/metrics')).text).toMatch(/^agent_deploy_leader 0$/m);
    expect(await a.get('/readyz')).toMatchObject({ status: 200 });
    expect((await a.get('/metrics')).text).toMatch(/^agent_deploy_leader 1$/m);
  });

  it('hands over within 20 s when the leader is SIGKILLed, and the new leader reconciles', async () => {
    await a.operator.kill('SIGKILL');
    const killedAt = Date.now();
    await apply(namespace, agentDeployment('second', spec));
    await waitFor(namespace, 'second', 'condition=Ready', 30);
    const tookMs = Date.now() - killedAt;
    console.log(`failover after SIGKILL: ${tookMs} ms to a Ready new resource`);
    expect(tookMs).toBeLessThan(20_000);
    expect(await holder()).toBe('op-b');
    expect(led(b.operator)).toBe(true);
    expect((await b.get('/metrics')).text).toMatch(/^agent_deploy_leader 1$/m);
  });

  let c: Awaited<ReturnType<typeof candidate>>;

  it('releases the lease on SIGTERM, so a standby takes over at once', async () => {
    c = await candidate('op-c');
    const termAt = Date.now();
    await b.operator.kill('SIGTERM');
    expect(await b.operator.exited).toBe(0);
    expect(b.operator.logs.some((l) => /released the lease/.test(l))).toBe(true);
    await c.operator.waitForLog(/became leader/, 10_000);
    const tookMs = Date.now() - termAt;
    console.log(`handover after SIGTERM: ${tookMs} ms`);
    // One retry period (2 s, jittered) after the release, far from the 15 s expiry.
    expect(tookMs).toBeLessThan(6_000);
    expect(await holder()).toBe('op-c');
  });

  it('exits non-zero when its lease is taken away', async () => {
    await c.operator.waitForLog(/caches synced/);
    const now = microTime(new Date());
    await kubectl([
      'patch',
      'lease',
      '-n',
      namespace,
      lease,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { holderIdentity: 'someone-else', renewTime: now, acquireTime: now } }),
    ]);
    // Renewals fail from now on; after the 10 s renew deadline the process must stop reconciling.
    expect(await c.operator.exited).toBe(1);
    expect(c.operator.logs.some((l) => /lost the leader lease/.test(l))).toBe(true);
    expect(await holder()).toBe('someone-else');
  });
});
