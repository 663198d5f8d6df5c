// `agent-deploy diff -f PATH`: what the operator would do for each Deployment in the manifests against
// the live service (create, patch, take over, nothing, or why it cannot) without changing anything (only
// GETs). A CI gate, as `kubectl diff`: exit 0 when nothing would change, 1 when something would, 2 on
// error. The decision is the operator's own planner (planDeployment), given the inputs and the
// observation the reconciler would build; this file only gathers them and shows the plan.
import { Command, Option } from 'commander';
import { annotations } from '../../api/constants.ts';
import type { DeploymentResource } from '../../api/deployment.ts';
import type { ListenerResource } from '../../api/listener.ts';
import { deploymentName, desiredDeployment } from '../../controllers/deployment/desired.ts';
import { type InputSources, repositoryFinder, resolveInputs } from '../../controllers/deployment/inputs.ts';
import { knownId } from '../../controllers/deployment/kind.ts';
import {
  type DeploymentInputs,
  type DeploymentObservation,
  type DeploymentPlan,
  observeDeployment,
  observedReason,
  pausedReason,
  planDeployment,
} from '../../controllers/deployment/planner.ts';
import { secretsDigest } from '../../controllers/deployment/secrets-digest.ts';
import { isObserved, isPaused } from '../../controllers/managed/plan.ts';
import { DEPLOYMENTS, LISTENERS } from '../../controllers/resources.ts';
import { ownWorkspace, workspaceKeyOf } from '../../controllers/workspace/refs.ts';
import { KubeClient } from '../../runtime/kube.ts';
import { SECRETS, type Secret } from '../../runtime/kube-objects.ts';
import { loadKubeconfig } from '../../runtime/kubeconfig.ts';
import type { ServiceClient } from '../../service/client.ts';
import type { CreateDeploymentRequest, Deployment } from '../../service/wire.ts';
import {
  describeChange,
  describeSecrets,
  type FieldChange,
  patchChanges,
  type SecretChanges,
} from '../field-diff.ts';
import { deploymentsIn, readManifests } from '../manifests.ts';
import { hidden, serialize } from '../output.ts';
import { CliFailure } from '../run.ts';
import { addServiceOptions, type ServiceFlags, withService } from '../service-options.ts';

interface Flags extends ServiceFlags {
  filename: string[];
  kubeconfig?: string;
}

type Outcome =
  /** `replaces`: the id the resource was bound to, which the service no longer has. */
  | { action: 'create'; replaces?: string; request: MaskedCreate }
  | {
      action: 'patch';
      deploymentId: string;
      /** Why the operator would take this deployment over (it is not bound to it yet). */
      adopts?: string;
      /** The spec's top-level fields the PATCH sends. */
      fields: string[];
      changes: FieldChange[];
      secrets?: SecretChanges;
    }
  | { action: 'nothing'; deploymentId?: string; adopts?: string; reason?: string }
  | { action: 'cannot'; deploymentId?: string; adopts?: string; reason: string };

export type DiffResult = Outcome & { resource: string; deployment: string; notes?: string[] };

type MaskedCreate = Omit<CreateDeploymentRequest, 'secrets'> & { secrets: { name: string; value: string }[] };

/** The exit status a CI job sees. */
export const exitCodes = { unchanged: 0, changes: 1, error: 2 } as const;

const exitHelp = `
Exit status, as kubectl diff:
  0  nothing would change
  1  something would change: a create, a patch, or taking over a service
     deployment
  2  an error: a path that cannot be read, an invalid manifest, no Deployment
     in the input, a failure of the service or the cluster, or a Deployment
     the operator could not apply (the reason is printed)

-f takes files, directories (read recursively: files ending .yaml, .yml or
.json) and - (standard input), and may be given more than once. Documents of
other kinds are skipped.`;

export function command(): Command {
  return (
    addServiceOptions(
      new Command('diff')
        .description(
          'Show what the operator would do for each Deployment in the manifests against the live service ' +
            '(create, patch, take over, nothing, or why it cannot). Changes nothing.',
        )
        .requiredOption(
          '-f, --filename <path>',
          'manifest file, directory or - for standard input (repeatable)',
          (value: string, previous: string[] = []) => [...previous, value],
        )
        .addOption(
          new Option(
            '--kubeconfig <file>',
            'read referenced Secrets and Listeners (and the resources’ own annotations and status) from this ' +
              'cluster; with $KUBECONFIG set (a list of files, merged as kubectl merges them), from that one',
          ),
        ),
    )
      .addHelpText('after', exitHelp)
      // A usage error is an error: 2, not commander's 1, which here means "differences". Help exits 0.
      .exitOverride((err) => {
        if (err.exitCode !== 0) throw new CliFailure(err.message, exitCodes.error, { printed: true });
      })
      .action(async (flags: Flags) => {
        try {
          process.exitCode = await run(flags);
        } catch (err) {
          if (err instanceof CliFailure) throw err;
          throw new CliFailure(err instanceof Error ? err.message : String(err), exitCodes.error, {
            cause: err,
          });
        }
      })
  );
}

async function run(flags: Flags): Promise<number> {
  const resources = deploymentsIn(await readManifests(flags.filename));
  // Without either, diff works from the manifests alone: no ~/.kube/config or in-cluster fallback.
  const kube =
    flags.kubeconfig || process.env.KUBECONFIG
      ? await KubeClient.fromKubeConfig(loadKubeconfig({ file: flags.kubeconfig }))
      : undefined;
  let results: DiffResult[];
  try {
    results = await withService(flags, async (client) => {
      const findRepository = repositoryFinder(client);
      const out: DiffResult[] = [];
      for (const cr of resources) out.push(await diffOne(cr, { client, kube, findRepository }));
      return out;
    });
  } finally {
    await kube?.close();
  }
  process.stdout.write(
    flags.output === 'table' ? results.map(describe).join('') : serialize(flags.output, results),
  );
  const refused = results.filter((r) => r.action === 'cannot');
  if (refused.length > 0)
    throw new CliFailure(
      `the operator could not apply ${refused.map((r) => `${r.resource} (${r.reason})`).join('; ')}`,
      exitCodes.error,
    );
  return results.some(changesSomething) ? exitCodes.changes : exitCodes.unchanged;
}

/** A create, a patch, or taking over a deployment (binding the resource to it) changes something. */
const changesSomething = (r: DiffResult): boolean =>
  r.action === 'create' || r.action === 'patch' || (r.action === 'nothing' && r.adopts !== undefined);

interface Deps {
  client: ServiceClient;
  kube: KubeClient | undefined;
  findRepository: InputSources['repository'];
}

async function diffOne(fromFile: DeploymentResource, deps: Deps): Promise<DiffResult> {
  const { name, namespace } = fromFile.metadata as { name: string; namespace: string };
  // What the operator knows beyond the manifest (deployment id, create marker, secrets digest) lives
  // on the resource in the cluster: use it when the file does not carry it.
  const live = deps.kube ? await deps.kube.find<DeploymentResource>(DEPLOYMENTS, name, namespace) : undefined;
  const cr: DeploymentResource = {
    ...fromFile,
    metadata: {
      ...fromFile.metadata,
      uid: fromFile.metadata.uid ?? live?.metadata.uid,
      annotations: { ...live?.metadata.annotations, ...fromFile.metadata.annotations },
    } as DeploymentResource['metadata'],
    ...((fromFile.status ?? live?.status) ? { status: fromFile.status ?? live?.status } : {}),
  };
  const base = { resource: `${namespace}/${name}`, deployment: deploymentName(cr) };
  // As the reconciler: a paused resource is neither resolved nor observed.
  if (isPaused(cr)) return { ...base, action: 'nothing', reason: pausedReason };
  // An observed resource is found, never written: no inputs (nor Secrets) are read for it.
  if (isObserved(cr)) return { ...base, ...shown(observeDeployment(cr, await observe(cr, deps))) };

  const notes: string[] = [];
  const observed = await observe(cr, deps);
  const sources = await inputSources(cr, deps, observed.bound ?? observed.byName ?? undefined, notes);
  const resolved = await resolveInputs(cr, sources);
  if ('problem' in resolved) {
    const reason =
      resolved.problem.reason === 'ListenerNotReady' && !deps.kube
        ? `${resolved.problem.message}: the listenerId of spec.listenerRef is read from the cluster; pass --kubeconfig`
        : resolved.problem.message;
    return withNotes({ ...base, action: 'cannot', reason }, notes);
  }
  const inputs: DeploymentInputs = {
    desired: desiredDeployment(cr, resolved.inputs),
    digest: secretsDigest(cr.metadata.uid ?? '', resolved.inputs.secrets),
  };
  const plan = planDeployment(cr, inputs, observed);
  if (plan.assumption) notes.push(plan.assumption);
  if (observed.gone && plan.action !== 'create')
    notes.push(`service deployment ${observed.gone}, which the resource was bound to, no longer exists`);
  return withNotes({ ...base, ...shown(plan) }, notes);
}

/** The plan as diff shows it: secret values hidden, a patch field by field. */
function shown(plan: DeploymentPlan & { reason?: string }): Outcome {
  const id = plan.action !== 'create' && plan.target ? { deploymentId: plan.target.id } : {};
  const adopts = plan.action !== 'create' && plan.adopt ? { adopts: plan.adopt.why } : {};
  switch (plan.action) {
    case 'create':
      return {
        action: 'create',
        ...(plan.replaces ? { replaces: plan.replaces } : {}),
        request: {
          ...plan.request,
          secrets: plan.request.secrets.map((s) => ({ name: s.name, value: hidden })),
        },
      };
    case 'patch':
      return {
        action: 'patch',
        deploymentId: plan.target.id,
        ...adopts,
        fields: plan.fields,
        ...patchChanges(plan.patch, plan.target),
      };
    case 'nothing':
      return { action: 'nothing', ...id, ...adopts, ...(plan.reason ? { reason: plan.reason } : {}) };
    case 'cannot':
      return { action: 'cannot', ...id, ...adopts, reason: plan.problem.message };
    case 'observe':
      return { action: 'nothing', ...id, reason: observedReason };
  }
}

const withNotes = (result: DiffResult, notes: string[]): DiffResult =>
  notes.length > 0 ? { ...result, notes } : result;

/**
 * What the reconciler would observe: the deployment bound by the known id, else (or when that is gone)
 * the one holding the name. The reconciler looks by name only when a create's outcome is unknown or a
 * create was refused; diff always does, to tell what a create would meet. Which other resource holds a
 * deployment (`rival`) is the operator's informer's knowledge: diff cannot tell, and leaves it unset.
 */
async function observe(cr: DeploymentResource, { client, kube }: Deps): Promise<DeploymentObservation> {
  const observation: DeploymentObservation = {
    pending: cr.metadata.annotations?.[annotations.createPending] !== undefined,
    // Without the cluster, the binding (the resource's annotation and status) is unknown.
    bindingKnown: kube !== undefined,
  };
  const id = knownId(cr);
  if (id) {
    const page = await client.listDeployments({ deployment_ids: [id], limit: 1 });
    const bound = page.resources.find((d) => d.id === id);
    if (bound) return { ...observation, bound };
    // An entry that breaks the interface is not a deployment that is gone: say what is wrong with it,
    // as the operator would, rather than show a create that would replace it.
    const unreadable = page.rejected.find((r) => r.id === id || r.id === undefined);
    if (unreadable) throw unreadable.error;
    observation.gone = id;
  }
  return { ...observation, byName: (await client.findDeploymentByName(deploymentName(cr))) ?? null };
}

/**
 * Secrets and Listeners come from the cluster when there is one. Without it, a value read from a
 * Secret is unknown: it is taken to be what the service holds, so only names are compared.
 */
async function inputSources(
  cr: DeploymentResource,
  deps: Deps,
  observed: Deployment | undefined,
  notes: string[],
): Promise<InputSources> {
  const namespace = cr.metadata.namespace!;
  const { spec } = cr;
  const refs = [
    ...(spec.secretsFrom ?? []).map((s) => s.secretRef.name),
    ...(spec.secrets ?? []).flatMap((s) => (s.valueFrom ? [s.valueFrom.secretKeyRef.name] : [])),
  ];
  const secrets = new Map<string, Secret | undefined>();
  const listeners = new Map<string, ListenerResource | undefined>();
  const { kube } = deps;
  if (kube) {
    for (const name of new Set(refs)) secrets.set(name, await kube.find<Secret>(SECRETS, name, namespace));
    if (spec.listenerRef) {
      listeners.set(
        spec.listenerRef.name,
        await kube.find<ListenerResource>(LISTENERS, spec.listenerRef.name),
      );
    }
  } else if (refs.length > 0) {
    for (const [name, secret] of unknownSecrets(cr, observed)) secrets.set(name, secret);
    const fromRefs = (spec.secrets ?? []).filter((s) => s.valueFrom).map((s) => s.name);
    if (fromRefs.length > 0)
      notes.push(
        `values of ${fromRefs.join(', ')} come from Secrets and are unknown without --kubeconfig: compared by name only`,
      );
    for (const { secretRef } of spec.secretsFrom ?? [])
      notes.push(
        `the keys of Secret ${secretRef.name} (spec.secretsFrom) are unknown without --kubeconfig: taken to be the service's other secrets`,
      );
  }
  return {
    secret: async (_ns, name) => {
      const secret = secrets.get(name);
      return secret ? { data: secret.data ?? {} } : { missing: 'NotFound' };
    },
    listener: (name) => listeners.get(name),
    repository: deps.findRepository,
    workspaceOf: (x) => workspaceKeyOf(x, ownWorkspace),
  };
}

const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');

/** Stand-ins for the referenced Secrets, holding what the service has under each secret's name. */
function unknownSecrets(cr: DeploymentResource, observed: Deployment | undefined): Map<string, Secret> {
  const held = new Map((observed?.secrets ?? []).map((s) => [s.name, s.value]));
  const named = new Set((cr.spec.secrets ?? []).map((s) => s.name));
  const out = new Map<string, Secret>();
  const data = (name: string) => {
    let secret = out.get(name);
    if (!secret) {
      secret = { metadata: { name }, data: {} };
      out.set(name, secret);
    }
    return secret.data!;
  };
  for (const { secretRef } of cr.spec.secretsFrom ?? []) {
    const d = data(secretRef.name);
    for (const [name, value] of held) if (!named.has(name)) d[name] = b64(value);
  }
  for (const entry of cr.spec.secrets ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    if (ref) data(ref.name)[ref.key] = b64(held.get(entry.name) ?? '');
  }
  return out;
}

const indent = (text: string, by: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

/** The human-readable form of one result. */
function describe(r: DiffResult): string {
  const head = `Deployment ${r.resource} (service deployment ${r.deployment}): `;
  const lines: string[] = [];
  const adopted =
    'adopts' in r && r.adopts ? `take over ${r.deploymentId} (because of ${r.adopts}), then ` : '';
  switch (r.action) {
    case 'create':
      lines.push(
        `${head}create${r.replaces ? ` (again: ${r.replaces} no longer exists on the service)` : ''}`,
        '  POST /v2/deployments',
        indent(serialize('yaml', r.request), '    '),
      );
      if (r.request.secrets.length > 0) lines.push('    # secret values are not shown');
      break;
    case 'patch':
      lines.push(
        `${head}${adopted}patch ${r.fields.join(', ')}`,
        `  PATCH /v2/deployments/${r.deploymentId}`,
        ...r.changes.map((c) => `    ${describeChange(c)}`),
        ...(r.secrets ? describeSecrets(r.secrets).map((l) => `    ${l}`) : []),
      );
      break;
    case 'nothing':
      lines.push(
        `${head}${adopted}nothing to do${r.reason ? `: ${r.reason}` : ` (${r.deploymentId} holds the spec)`}`,
      );
      break;
    case 'cannot':
      lines.push(`${head}cannot: ${r.reason}`);
      break;
  }
  for (const note of r.notes ?? []) lines.push(`  note: ${note}`);
  return `${lines.join('\n')}\n`;
}
