import { describe, expect, it } from 'vitest';
import type { DeploymentResource } from '../../../src/api/deployment.ts';
import { desiredDeployment } from '../../../src/controllers/deployment/desired.ts';
import {
  type DeploymentObservation,
  observeDeployment,
  planDeployment,
} from '../../../src/controllers/deployment/planner.ts';
import { secretsDigest } from '../../../src/controllers/deployment/secrets-digest.ts';
import type { Deployment } from '../../../src/service/wire.ts';

const uid = 'uid-1';
const resource = (
  over: {
    adopt?: boolean;
    image?: string;
    annotations?: Record<string, string>;
    sentDigest?: string;
    policy?: 'Manage' | 'Observe';
    /** The Synced reason of the last status written. */
    synced?: string;
  } = {},
): DeploymentResource => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'team',
    uid,
    ...(over.annotations ? { annotations: over.annotations } : {}),
  },
  spec: {
    source: 'internal_docker',
    sourceConfig: { deploymentType: 'prod' },
    sourceRevisionConfig: { imageUri: over.image ?? 'agent:1' },
    deletionPolicy: 'Delete',
    adopt: over.adopt ?? false,
    managementPolicy: over.policy ?? 'Manage',
  },
  ...(over.sentDigest || over.synced
    ? {
        status: {
          ...(over.sentDigest ? { secretsDigest: over.sentDigest } : {}),
          ...(over.synced ? { conditions: [syncedBy(over.synced)] } : {}),
        },
      }
    : {}),
});
const syncedBy = (reason: string) => ({
  type: 'Synced' as const,
  status: 'True' as const,
  reason,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const held = (over: Partial<Deployment> = {}): Deployment => ({
  id: 'dep-1',
  tenant_id: 't',
  name: 'web',
  source: 'internal_docker',
  source_config: { deployment_type: 'prod' },
  source_revision_config: { image_uri: 'agent:1' },
  // The service does not echo values: what it holds is told by the digest of what was last sent.
  secrets: [{ name: 'TOKEN', value: '' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r1',
  active_revision_id: 'r1',
  ...over,
});
const secrets = [{ name: 'TOKEN', value: 'canary-9f3a' }];
const inputsOf = (cr: DeploymentResource, values = secrets) => ({
  desired: desiredDeployment(cr, { secrets: values }),
  digest: secretsDigest(uid, values),
});
const seen = (over: Partial<DeploymentObservation> = {}): DeploymentObservation => ({
  pending: false,
  bindingKnown: true,
  ...over,
});
const sent = secretsDigest(uid, secrets);
const pendingMarker = { 'deploy.agents.dev/create-pending': '2026-11-23T00:00:00Z' };

/** Action, adoption and problem reason: what a reader of the table compares. */
const summary = (plan: ReturnType<typeof planDeployment>) => ({
  action: plan.action,
  ...(plan.action !== 'create' && plan.adopt ? { adopt: plan.adopt.why } : {}),
  ...(plan.action === 'cannot' ? { reason: plan.problem.reason } : {}),
  ...(plan.action === 'patch' ? { fields: plan.fields } : {}),
});

const table: {
  name: string;
  cr: DeploymentResource;
  observed: DeploymentObservation;
  values?: typeof secrets;
  want: ReturnType<typeof summary>;
}[] = [
  { name: 'nothing known: create', cr: resource(), observed: seen(), want: { action: 'create' } },
  {
    name: 'bound and equal, secrets digest as last sent: nothing',
    cr: resource({ sentDigest: sent }),
    observed: seen({ bound: held() }),
    want: { action: 'nothing' },
  },
  {
    name: 'a rotated secret value changes the digest: patch secrets',
    cr: resource({ sentDigest: sent }),
    observed: seen({ bound: held() }),
    values: [{ name: 'TOKEN', value: 'rotated' }],
    want: { action: 'patch', fields: ['secrets'] },
  },
  {
    name: 'no digest recorded yet: the secrets are sent',
    cr: resource(),
    observed: seen({ bound: held() }),
    want: { action: 'patch', fields: ['secrets'] },
  },
  {
    name: 'a changed image: patch sourceRevisionConfig',
    cr: resource({ image: 'agent:2', sentDigest: sent }),
    observed: seen({ bound: held() }),
    want: { action: 'patch', fields: ['sourceRevisionConfig'] },
  },
  {
    name: 'an immutable field differs: cannot, InvalidSpec',
    cr: resource({ sentDigest: sent }),
    observed: seen({ bound: held({ source_config: { deployment_type: 'dev' } }) }),
    want: { action: 'cannot', reason: 'InvalidSpec' },
  },
  {
    name: 'the bound id is gone: create again',
    cr: resource(),
    observed: seen({ gone: 'dep-0' }),
    want: { action: 'create' },
  },
  {
    name: 'a pending marker meeting a 409, the name held by no one else: adopt the earlier create',
    cr: resource({ annotations: pendingMarker, sentDigest: sent }),
    observed: seen({ pending: true, nameTaken: 'exists', byName: held() }),
    want: { action: 'nothing', adopt: 'an earlier create of this resource' },
  },
  {
    name: 'a pending marker meeting a 409 for a name nobody shows: cannot, AlreadyExists',
    cr: resource({ annotations: pendingMarker }),
    observed: seen({ pending: true, nameTaken: 'name is reserved', byName: null }),
    want: { action: 'cannot', reason: 'AlreadyExists' },
  },
  {
    name: 'a pending marker and the name held by another resource: cannot, Conflict',
    cr: resource({ annotations: pendingMarker }),
    observed: seen({ pending: true, byName: held(), rival: 'team/other' }),
    want: { action: 'cannot', reason: 'Conflict' },
  },
  {
    name: 'a 409 without spec.adopt: cannot, AlreadyExists',
    cr: resource(),
    observed: seen({ nameTaken: 'exists', byName: held() }),
    want: { action: 'cannot', reason: 'AlreadyExists' },
  },
  {
    name: 'a 409 with spec.adopt: adopt, then patch what differs',
    cr: resource({ adopt: true, image: 'agent:2' }),
    observed: seen({ nameTaken: 'exists', byName: held() }),
    want: { action: 'patch', adopt: 'spec.adopt', fields: ['sourceRevisionConfig', 'secrets'] },
  },
  {
    name: 'spec.adopt when another resource holds it: cannot, Conflict',
    cr: resource({ adopt: true }),
    observed: seen({ nameTaken: 'exists', byName: held(), rival: 'team/first' }),
    want: { action: 'cannot', reason: 'Conflict' },
  },
  {
    name: 'observed and bound, the image differs: observe, no patch',
    cr: resource({ policy: 'Observe', image: 'agent:2' }),
    observed: seen({ bound: held() }),
    want: { action: 'observe' },
  },
  {
    name: 'observed, found by name and held by a managing resource: observe, never Conflict',
    cr: resource({ policy: 'Observe' }),
    observed: seen({ byName: held(), rival: 'team/first' }),
    want: { action: 'observe' },
  },
  {
    name: 'observed, nothing found: cannot, NotFound (never create)',
    cr: resource({ policy: 'Observe' }),
    observed: seen({ byName: null }),
    want: { action: 'cannot', reason: 'NotFound' },
  },
  {
    name: 'observed, the bound id gone and the name free: cannot, NotFound',
    cr: resource({ policy: 'Observe', annotations: pendingMarker }),
    observed: seen({ gone: 'dep-0', pending: true, byName: null }),
    want: { action: 'cannot', reason: 'NotFound' },
  },
  {
    name: 'switched from Observe to Manage: adopt what it observed, without spec.adopt',
    cr: resource({ synced: 'Observing', image: 'agent:2' }),
    observed: seen({ bound: held() }),
    want: {
      action: 'patch',
      adopt: 'spec.managementPolicy: Manage (it was Observe)',
      fields: ['sourceRevisionConfig', 'secrets'],
    },
  },
  {
    name: 'switched from Observe to Manage, another resource manages it: cannot, Conflict',
    cr: resource({ synced: 'Observing' }),
    observed: seen({ bound: held(), rival: 'team/first' }),
    want: { action: 'cannot', reason: 'Conflict' },
  },
  {
    name: 'switched back to Manage, its annotation holding the id (it managed it before): no take-over',
    cr: resource({
      synced: 'Observing',
      sentDigest: sent,
      annotations: { 'deploy.agents.dev/deployment-id': 'dep-1' },
    }),
    observed: seen({ bound: held() }),
    want: { action: 'nothing' },
  },
  {
    name: 'managed and bound, another resource holds the id too: no Conflict (judged when adopting)',
    cr: resource({ synced: 'Synced', sentDigest: sent }),
    observed: seen({ bound: held(), rival: 'team/first' }),
    want: { action: 'nothing' },
  },
  {
    name: 'paused: nothing, whatever the service holds',
    cr: resource({ image: 'agent:2', annotations: { 'deploy.agents.dev/paused': 'true' } }),
    observed: seen({ bound: held() }),
    want: { action: 'nothing' },
  },
];

describe('planDeployment', () => {
  for (const row of table)
    it(row.name, () => {
      expect(summary(planDeployment(row.cr, inputsOf(row.cr, row.values), row.observed))).toEqual(row.want);
    });

  it('advises spec.adopt only when the binding is known', () => {
    const cr = resource({ sentDigest: sent });
    const known = planDeployment(cr, inputsOf(cr), seen({ byName: held() }));
    expect(known.action === 'cannot' && known.problem.message).toContain('set spec.adopt: true');
    const unknown = planDeployment(cr, inputsOf(cr), seen({ byName: held(), bindingKnown: false }));
    expect(unknown).toMatchObject({ action: 'nothing' });
    expect(unknown.assumption).toContain('no telling whether this resource already holds');
    expect(JSON.stringify(unknown)).not.toContain('spec.adopt');
  });

  it('says an observed resource is not created, and never reads its inputs', () => {
    const cr = resource({ policy: 'Observe' });
    const plan = observeDeployment(cr, seen({ byName: null, gone: 'dep-0' }));
    expect(plan.action === 'cannot' && plan.problem).toMatchObject({ reason: 'NotFound', stalled: false });
    expect(plan.action === 'cannot' && plan.problem.message).toContain('dep-0');
    expect(plan.action === 'cannot' && plan.problem.message).toContain('spec.managementPolicy: Observe');
    // The planner of the reconciler and of `diff` agree without any inputs at all.
    expect(planDeployment(cr, undefined as never, seen({ bound: held() }))).toEqual({
      action: 'observe',
      target: held(),
    });
  });

  it('names the gone id it replaces, and says why it is paused', () => {
    const cr = resource();
    expect(planDeployment(cr, inputsOf(cr), seen({ gone: 'dep-0' }))).toMatchObject({ replaces: 'dep-0' });
    const paused = resource({ annotations: { 'deploy.agents.dev/paused': 'true' } });
    expect(planDeployment(paused, inputsOf(paused), seen()).reason).toContain('paused');
  });

  it('names spec.repository, not the sourceConfig fields it resolves to, when the repository changed', () => {
    const cr: DeploymentResource = {
      ...resource({ sentDigest: sent }),
      spec: {
        source: 'codehost',
        repository: { owner: 'acme', name: 'other-agent' },
        sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
        deletionPolicy: 'Orphan',
        adopt: false,
      } as DeploymentResource['spec'],
    };
    const repository = {
      integrationId: 'int-1',
      repoUrl: 'https://github.com/acme/other-agent',
      branch: 'main',
    };
    const inputs = { desired: desiredDeployment(cr, { secrets, repository }), digest: sent };
    const bound = held({
      source: 'codehost',
      source_config: { integration_id: 'int-1', repo_url: 'https://github.com/acme/support-agent' },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    });
    const plan = planDeployment(cr, inputs, seen({ bound }));
    expect(plan.action === 'cannot' && plan.problem.message).toMatch(
      /^spec\.repository \(its sourceConfig\.repoUrl\) differs from the service deployment and cannot be changed after creation: to change it, delete this resource and create it again/,
    );
  });
});
