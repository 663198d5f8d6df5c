// `agent-deploy logs deployment/NAME`: the Deployment resource is read from a real cluster, and the
// service deployment it is bound to (its annotation), or else the name it gives the service, is used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeedKeys } from '../../../src/emulator/seed.ts';
import type { RunningEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import { agentDeployment, apply, setUp } from '../../controllers/deployment/support.ts';
import { kubeconfigPath } from '../../support/kube.ts';
import { cli, oneLineError, serviceEnv } from '../support.ts';

let namespace: string;
let emu: RunningEmulator;
let client: ServiceClient;

beforeAll(async () => {
  ({ namespace, emu } = await setUp('cli-logs'));
  client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

describe('agent-deploy logs deployment/NAME', () => {
  it('follows the resource to the service deployment it is bound to, or the name it gives', async () => {
    const service = await client.createDeployment({
      name: `${namespace}-svc`,
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: 'agent:fail-build' },
      secrets: [],
    });
    const bound = agentDeployment('bound', {
      name: 'some-other-name',
      source: 'internal_docker',
      sourceRevisionConfig: { imageUri: 'agent:fail-build' },
    });
    await apply(namespace, {
      ...bound,
      metadata: { ...bound.metadata, annotations: { 'deploy.agents.dev/deployment-id': service.id } },
    });
    await apply(
      namespace,
      agentDeployment('named', {
        name: `${namespace}-svc`,
        source: 'internal_docker',
        sourceRevisionConfig: { imageUri: 'agent:fail-build' },
      }),
    );
    const args = (ref: string) => [
      'logs',
      ref,
      '-n',
      namespace,
      '--kubeconfig',
      kubeconfigPath(),
      '--build',
      '--tail',
      '1',
    ];
    for (const ref of ['deployment/bound', 'deployments.deploy.agents.dev/named']) {
      const run = await cli(args(ref), serviceEnv(emu.url));
      expect([run.code, run.stdout]).toEqual([0, 'Build failed: exit code 1\n']);
    }
    expect(oneLineError(await cli(args('deployment/absent'), serviceEnv(emu.url)))).toContain(
      `Deployment ${namespace}/absent not found in the cluster`,
    );
  });
});
