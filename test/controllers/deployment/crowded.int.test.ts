import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerEnv, helmReleaseSecrets, inPool } from '../../../bench/support.ts';
import { freePort } from '../../../src/controlplane/ports.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { KubeClient } from '../../../src/runtime/kube.ts';
import { adminKubeConfig, createTestNamespace, kubectl } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { agentDeployment, emulatorState, setUp } from './support.ts';

const MB = 1024 * 1024;
const LIST = 'GET /v2/deployments';

const docker = (i: number, extra: Record<string, unknown> = {}) => ({
  source: 'internal_docker',
  sourceRevisionConfig: { imageUri: `agent:${i}` },
  ...extra,
});

async function applyAll(namespace: string, items: object[]): Promise<void> {
  await kubectl(['apply', '-n', namespace, '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  });
}

const waitAllReady = (namespace: string, timeoutS = 120) =>
  kubectl([
    'wait',
    '-n',
    namespace,
    'deployments.deploy.agents.dev',
    '--all',
    '--for=condition=Ready',
    `--timeout=${timeoutS}s`,
  ]);

describe('a crowded cluster', () => {
  let admin: KubeClient;
  beforeAll(async () => {
    admin = await KubeClient.fromKubeConfig(adminKubeConfig());
  });
  afterAll(async () => {
    await admin.close();
  });

  describe('with 2,000 unrelated 64 KB Secrets', () => {
    const helmNamespaces: string[] = [];
    const resources = 20;

    beforeAll(async () => {
      for (let i = 0; i < 20; i++) helmNamespaces.push(await createTestNamespace(`helm-${i}`));
    });
    afterAll(async () => {
      await inPool(helmNamespaces, 4, (ns) =>
        kubectl(['delete', 'secrets', '--all', '-n', ns, '--wait=false']),
      );
    });

    /**
     * One run, the same each time: a fresh namespace and emulator, `resources` Deployments reading one
     * Secret, all Ready, then the Secret rotated: a new revision each. Returns the operator's peak RSS.
     */
    async function run(prefix: string): Promise<number> {
      const { namespace, emu } = await setUp(prefix);
      const operator = startOperator({
        serviceUrl: emu.url,
        namespaces: [namespace, ...helmNamespaces],
        env: containerEnv, // the image's V8 heap limit and allocator settings
      });
      try {
        const keys = (value: string) => ({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'app-keys' },
          stringData: { API_TOKEN: value },
        });
        await applyAll(namespace, [
          keys('first'),
          ...Array.from({ length: resources }, (_, i) =>
            agentDeployment(`app-${i}`, {
              ...docker(i),
              secrets: [
                { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'app-keys', key: 'API_TOKEN' } } },
              ],
            }),
          ),
        ]);
        await waitAllReady(namespace);
        const rotated = Date.now();
        await applyAll(namespace, [keys('second')]);
        await expect
          .poll(
            async () => (await emulatorState(emu)).deployments.filter((d) => d.revisions.length === 2).length,
            {
              timeout: 20_000,
            },
          )
          .toBe(resources);
        expect(Date.now() - rotated).toBeLessThan(20_000);
        await waitAllReady(namespace);
        expect(operator.logs.join('\n')).not.toMatch(/heap out of memory/);
        return operator.peakRss();
      } finally {
        await operator.kill();
        await emu.close();
      }
    }

    it('stays up under the container heap limit, its peak RSS grows by at most 40 MB, rotation still works', async () => {
      const quiet = await run('quiet');
      await helmReleaseSecrets(admin, helmNamespaces, 100);
      const { stdout } = await kubectl([
        'get',
        'secrets',
        '-A',
        '--field-selector',
        'type=helm.sh/release.v1',
        '-o',
        'name',
      ]);
      expect(stdout.trim().split('\n').length).toBeGreaterThanOrEqual(2000);
      const crowded = await run('crowded');
      console.log(
        `operator peak RSS: ${(quiet / MB).toFixed(0)} MB quiet, ${(crowded / MB).toFixed(0)} MB crowded`,
      );
      expect(crowded - quiet).toBeLessThanOrEqual(40 * MB);
    }, 600_000);
  });

  describe('after churn', () => {
    let namespace: string;
    let emu: RunningEmulator;
    let operator: OperatorProcess;

    beforeAll(async () => {
      ({ namespace, emu } = await setUp('churn'));
      operator = startOperator({
        serviceUrl: emu.url,
        namespaces: [namespace],
        resync: '2s',
        healthPort: await freePort(),
      });
    });
    afterAll(async () => {
      await operator.kill();
      await emu.close();
    });

    const refreshes = async () =>
      Number(
        /^agent_deploy_observer_refreshes_total\{workspace="default"\} (\d+)/m.exec(
          await operator.metrics(),
        )?.[1] ?? 0,
      );
    /** Resolves right after a refresh has finished: the next one is at least 1.8 s away. */
    async function afterRefresh(): Promise<number> {
      const seen = await refreshes();
      let now = seen;
      while (now === seen) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        now = await refreshes();
      }
      return now;
    }

    it('reads only live ids: ⌈live/100⌉ calls per resync period once deleted resources are gone', async () => {
      const live = 50;
      // Together more than one batch of 100: an observer that kept the deleted ids would read 2 batches.
      const churned = 60;
      await applyAll(
        namespace,
        Array.from({ length: live + churned }, (_, i) => agentDeployment(`d-${i}`, docker(i))),
      );
      await waitAllReady(namespace);
      const names = Array.from({ length: churned }, (_, i) => `d-${live + i}`);
      await kubectl(['delete', '-n', namespace, 'deployments.deploy.agents.dev', ...names, '--wait=true']);

      await afterRefresh(); // the first refresh after the deletes drops what they left
      const r0 = await afterRefresh();
      const c0 = (await emulatorState(emu)).calls[LIST] ?? 0;
      let r1 = r0;
      while (r1 < r0 + 4) r1 = await afterRefresh();
      const c1 = (await emulatorState(emu)).calls[LIST] ?? 0;
      expect(c1 - c0).toBe(Math.ceil(live / 100) * (r1 - r0));
      expect(await operator.metrics()).toMatch(
        new RegExp(`^agent_deploy_observer_live_ids\\{workspace="default"\\} ${live}$`, 'm'),
      );
    }, 300_000);
  });
});
