// OAuthToken resources: a PATCH only when the spec differs from what status last saw (call counts),
// status mirrors the token, a token of another user is Stalled Forbidden in the service's words, and a
// token whose provider the service does not list is Ready with a warning.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, defaultSeedIds, defaultSeedKeys, type Seed } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { createTestNamespace } from '../../support/kube.ts';
import { type OperatorProcess, startOperator } from '../../support/operator.ts';
import { setUp } from '../deployment/support.ts';
import {
  apiVersion,
  applyResource,
  callCount,
  conditionsOf,
  example,
  getResource,
  serviceState,
  stalledWith,
  waitForResource,
} from '../resources.ts';

const PATCH = 'PATCH /v2/auth/tokens/{token_id}/metadata';
const gitlabToken = 'ffffffff-0000-4000-8000-000000000009';
const seed: Seed = {
  ...defaultSeed,
  tokens: [
    ...defaultSeed.tokens,
    {
      ...defaultSeed.tokens[0]!,
      id: gitlabToken,
      provider_id: 'gitlab',
      provider_account_label: 'dev@gitlab',
    },
  ],
};

const token = (name: string, spec: object) => ({ apiVersion, kind: 'OAuthToken', metadata: { name }, spec });

describe('OAuthToken controller', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;
  const serviceToken = async (id: string) => (await serviceState(emu)).tokens.find((t) => t.id === id)!;

  beforeAll(async () => {
    ({ namespace, emu } = await setUp('otok', { seed }));
    operator = startOperator({ serviceUrl: emu.url, namespaces: [namespace], resync: '3s' });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('patches what differs, once, mirrors the token, and not again on resyncs or an equal spec', async () => {
    const id = defaultSeedIds.githubToken;
    await applyResource(token('github', { tokenId: id, providerAccountLabel: 'ci@github' }), namespace);
    await waitForResource('oauthtokens', 'github', 'condition=Ready', namespace);
    const cr = await getResource('oauthtokens', 'github', namespace);
    const service = await serviceToken(id);
    expect(service.provider_account_label).toBe('ci@github');
    expect(cr.status).toMatchObject({
      observedGeneration: 1,
      providerId: 'github',
      providerAccountLabel: 'ci@github',
      scopes: ['repo', 'read:user'],
      expiresAt: '2030-01-01T00:00:00Z',
      isDefault: true,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: service.updated_at,
    });
    expect(conditionsOf(cr).Ready!.message).not.toContain('warning');
    expect(await callCount(emu, PATCH)).toBe(1);

    await sleep(4000); // a resync period
    expect(await callCount(emu, PATCH)).toBe(1);

    await applyResource(token('github', { tokenId: id, providerAccountLabel: 'ops@github' }), namespace);
    await waitForResource(
      'oauthtokens',
      'github',
      'jsonpath={.status.providerAccountLabel}=ops@github',
      namespace,
    );
    expect((await serviceToken(id)).provider_account_label).toBe('ops@github');
    expect(await callCount(emu, PATCH)).toBe(2);

    // isDefault as the token already is: a new generation, no PATCH.
    await applyResource(
      token('github', { tokenId: id, providerAccountLabel: 'ops@github', isDefault: true }),
      namespace,
    );
    await waitForResource('oauthtokens', 'github', 'jsonpath={.status.observedGeneration}=3', namespace);
    expect(await callCount(emu, PATCH)).toBe(2);
  });

  it('reads a token whose spec sets nothing with one PATCH that changes nothing', async () => {
    const id = defaultSeedIds.googleToken;
    const before = await callCount(emu, PATCH);
    await applyResource(token('google', { tokenId: id }), namespace);
    await waitForResource('oauthtokens', 'google', 'condition=Ready', namespace);
    const cr = await getResource('oauthtokens', 'google', namespace);
    expect(cr.status).toMatchObject({ providerId: 'google', providerAccountLabel: 'dev@example.com' });
    expect((await serviceToken(id)).updated_at).toBe('2025-01-01T00:00:00Z');
    expect((await callCount(emu, PATCH)) - before).toBe(1);
  });

  it('examples/oauth-token.yaml becomes Ready', async () => {
    const manifest = example('oauth-token.yaml');
    await applyResource(manifest, namespace);
    await waitForResource('oauthtokens', manifest.metadata.name, 'condition=Ready', namespace);
    const status = (await getResource('oauthtokens', manifest.metadata.name, namespace)).status;
    expect(status).toMatchObject({ providerAccountLabel: 'agents@example.com', isDefault: true });
  });

  it('is Ready with a warning when the service does not list the token provider', async () => {
    await applyResource(token('gitlab', { tokenId: gitlabToken }), namespace);
    await waitForResource('oauthtokens', 'gitlab', 'condition=Ready', namespace);
    const ready = conditionsOf(await getResource('oauthtokens', 'gitlab', namespace)).Ready!;
    expect(ready.message).toContain("provider gitlab is not among the service's OAuth providers");
  });
});

describe('OAuthToken controller with a key whose user does not own the token', () => {
  let namespace: string;
  let emu: RunningEmulator;
  let operator: OperatorProcess;

  beforeAll(async () => {
    namespace = await createTestNamespace('otok-owner');
    emu = await startEmulator({ port: 0, stepMs: 0 });
    operator = startOperator({
      serviceUrl: emu.url,
      apiKey: defaultSeedKeys.dev2,
      namespaces: [namespace],
      resync: '1h',
    });
  });
  afterAll(async () => {
    await operator.kill();
    await emu.close();
  });

  it('is Stalled Forbidden with a clear message, and does not retry', async () => {
    const spec = { tokenId: defaultSeedIds.githubToken, providerAccountLabel: 'not-mine' };
    await applyResource(token('borrowed', spec), namespace);
    await waitForResource('oauthtokens', 'borrowed', stalledWith('Forbidden'), namespace);
    const conditions = conditionsOf(await getResource('oauthtokens', 'borrowed', namespace));
    expect(conditions.Stalled!.message).toContain(`only the owner of token ${defaultSeedIds.githubToken}`);
    expect(conditions.Stalled!.message).toContain('Only the owner of a token can update it');
    expect(conditions.Ready).toMatchObject({ status: 'False', reason: 'Forbidden' });
    await sleep(5000);
    expect(await callCount(emu, PATCH)).toBe(1);
    expect((await serviceState(emu)).tokens.find((t) => t.id === spec.tokenId)!.provider_account_label).toBe(
      'dev@github',
    );
  });
});
