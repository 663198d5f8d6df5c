// `agent-deploy diff -f FILE`: what the operator would do for each Deployment in FILE against the live
// service — create, patch, nothing, or why it cannot — without changing anything (only GETs). The
// decisions are the operator's own functions (resolveInputs, desiredDeployment, diffDeployment).
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { annotations, apiVersion, kindNames } from '../../api/constants.ts';
import { type DeploymentResource, DeploymentSpec } from '../../api/deployment.ts';
import type { ListenerResource } from '../../api/listener.ts';
import { deploymentName, desiredDeployment } from '../../controllers/deployment/desired.ts';
import { diffDeployment } from '../../controllers/deployment/diff.ts';
import { type InputSources, repositoryFinder, resolveInputs } from '../../controllers/deployment/inputs.ts';
import { knownId } from '../../controllers/deployment/reconciler.ts';
import { secretsDigest } from '../../controllers/deployment/secrets-digest.ts';
import { DEPLOYMENTS, LISTENERS } from '../../controllers/resources.ts';
import {
  isNotFound,
  KubeClient,
  type KubeObject,
  type ResourceRef,
  SECRETS,
  type Secret,
} from '../../runtime/kube.ts';
import { loadKubeconfig } from '../../runtime/kubeconfig.ts';
import type { ServiceClient } from '../../service/client.ts';
import type { CreateDeploymentRequest, Deployment, PatchDeploymentRequest } from '../../service/wire.ts';
import { findDeploymentByName } from '../find-deployment.ts';
import { serialize } from '../output.ts';
import { addServiceOptions, type ServiceFlags, withService } from '../service-options.ts';

interface Flags extends ServiceFlags {
  filename: string;
  kubeconfig?: string;
}

type Outcome =
  | { action: 'create'; request: MaskedCreate }
  | { action: 'patch'; deploymentId: string; adopts?: string; patch: ShownPatch }
  | { action: 'nothing'; deploymentId?: string; adopts?: string; reason?: string }
  | { action: 'cannot'; deploymentId?: string; reason: string };

export type DiffResult = Outcome & { resource: string; deployment: string; notes?: string[] };

type MaskedCreate = Omit<CreateDeploymentRequest, 'secrets'> & { secrets: { name: string; value: string }[] };
type ShownPatch = Omit<PatchDeploymentRequest, 'secrets'> & { secrets?: string[] };

const hidden = '<hidden>';

export function command(): Command {
  return addServiceOptions(
    new Command('diff')
      .description(
        'Show what the operator would do for each Deployment in FILE against the live service (create, ' +
          'patch, nothing, or why it cannot). Changes nothing.',
      )
      .requiredOption('-f, --filename <file>', 'manifest file (multi-document YAML)')
      .addOption(
        new Option(
          '--kubeconfig <file>',
          'read referenced Secrets and Listeners (and the resources’ own annotations and status) from this ' +
            'cluster; with $KUBECONFIG set (a list of files, merged as kubectl merges them), from that one',
        ),
      ),
  ).action(async (flags: Flags) => {
    const resources = readDeployments(flags.filename);
    // Without either, diff works from the manifest alone: no ~/.kube/config or in-cluster fallback.
    const kube =
      flags.kubeconfig || process.env.KUBECONFIG
        ? await KubeClient.fromKubeConfig(loadKubeconfig({ file: flags.kubeconfig }))
        : undefined;
    try {
      const results = await withService(flags, async (client) => {
        const findRepository = repositoryFinder(client);
        const out: DiffResult[] = [];
        for (const doc of resources) out.push(await diffOne(doc, { client, kube, findRepository }));
        return out;
      });
      process.stdout.write(
        flags.output === 'table' ? results.map(describe).join('') : serialize(flags.output, results),
      );
    } finally {
      await kube?.close();
    }
  });
}

/** The Deployment documents of FILE; anything else in it is skipped. */
function readDeployments(file: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [];
  const broken = list.find((d) => d.errors.length > 0);
  if (broken) throw new Error(`${file} is not valid YAML: ${broken.errors[0]!.message.split('\n')[0]}`);
  const deployments = list
    .map((d) => d.toJS() as unknown)
    .filter(
      (o): o is Record<string, unknown> =>
        typeof o === 'object' &&
        o !== null &&
        (o as KubeObject).apiVersion === apiVersion &&
        (o as KubeObject).kind === kindNames.Deployment.kind,
    );
  if (deployments.length === 0) throw new Error(`${file} holds no Deployment (${apiVersion})`);
  return deployments;
}

interface Deps {
  client: ServiceClient;
  kube: KubeClient | undefined;
  findRepository: InputSources['repository'];
}

const getOrUndefined = <T extends KubeObject>(
  kube: KubeClient,
  res: ResourceRef,
  name: string,
  ns?: string,
) =>
  kube.get<T>(res, name, ns).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });

async function diffOne(doc: Record<string, unknown>, deps: Deps): Promise<DiffResult> {
  const metadata = (doc.metadata ?? {}) as DeploymentResource['metadata'];
  const namespace = metadata.namespace ?? 'default';
  const resource = `${namespace}/${metadata.name ?? '?'}`;
  const spec = DeploymentSpec.safeParse(doc.spec);
  if (!metadata.name || !spec.success) {
    const why = !metadata.name
      ? 'metadata.name is missing'
      : z.prettifyError(spec.error!).replaceAll('\n', '; ');
    return { resource, deployment: '?', action: 'cannot', reason: `invalid Deployment: ${why}` };
  }
  const fromFile: DeploymentResource = {
    apiVersion,
    kind: 'Deployment',
    metadata: { ...metadata, namespace },
    spec: spec.data,
    ...(doc.status ? { status: doc.status as DeploymentResource['status'] } : {}),
  };
  // What the operator knows beyond the manifest (deployment id, create marker, secrets digest) lives
  // on the resource in the cluster: use it when the file does not carry it.
  const live = deps.kube
    ? await getOrUndefined<DeploymentResource>(deps.kube, DEPLOYMENTS, metadata.name, namespace)
    : undefined;
  const cr: DeploymentResource = {
    ...fromFile,
    metadata: {
      ...fromFile.metadata,
      uid: fromFile.metadata.uid ?? live?.metadata.uid,
      annotations: { ...live?.metadata.annotations, ...fromFile.metadata.annotations },
    } as DeploymentResource['metadata'],
    ...((fromFile.status ?? live?.status) ? { status: fromFile.status ?? live?.status } : {}),
  };
  const name = deploymentName(cr);
  const base = { resource, deployment: name };
  if (cr.metadata.annotations?.[annotations.paused] === 'true')
    return { ...base, action: 'nothing', reason: `paused (${annotations.paused}: "true")` };

  const notes: string[] = [];
  const found = await findLive(cr, deps.client, notes);
  const observed = found?.deployment;
  if (found?.by === 'name' && !found.adopts) {
    return {
      ...base,
      action: 'cannot',
      deploymentId: found.deployment.id,
      reason: `a service deployment named ${name} already exists (${found.deployment.id}); set spec.adopt: true to take it over`,
    };
  }

  const sources = await inputSources(cr, deps, observed, notes);
  const resolved = await resolveInputs(cr, sources);
  if ('problem' in resolved) {
    const reason =
      resolved.problem.reason === 'ListenerNotReady' && !deps.kube
        ? `${resolved.problem.message}: the listenerId of spec.listenerRef is read from the cluster; pass --kubeconfig`
        : resolved.problem.message;
    return withNotes({ ...base, action: 'cannot', reason }, notes);
  }
  const desired = desiredDeployment(cr, resolved.inputs);
  if (!observed) {
    const request = {
      ...desired.create,
      secrets: desired.create.secrets.map((s) => ({ name: s.name, value: hidden })),
    };
    return withNotes({ ...base, action: 'create', request }, notes);
  }

  const diff = diffDeployment(desired, observed, {
    digest: secretsDigest(cr.metadata.uid ?? '', resolved.inputs.secrets),
    ...(cr.status?.secretsDigest ? { lastSentDigest: cr.status.secretsDigest } : {}),
  });
  const id = observed.id;
  const adopts = found?.adopts ? { adopts: found.adopts } : {};
  if (diff.immutable.length > 0) {
    const reason = `${diff.immutable.join(', ')} differ from the service deployment and cannot be changed after creation`;
    return withNotes({ ...base, action: 'cannot', deploymentId: id, reason }, notes);
  }
  if (!diff.patch) return withNotes({ ...base, action: 'nothing', deploymentId: id, ...adopts }, notes);
  const { secrets, ...rest } = diff.patch;
  const patch: ShownPatch = secrets ? { ...rest, secrets: secrets.map((s) => s.name) } : rest;
  return withNotes({ ...base, action: 'patch', deploymentId: id, ...adopts, patch }, notes);
}

const withNotes = (result: DiffResult, notes: string[]): DiffResult =>
  notes.length > 0 ? { ...result, notes } : result;

interface Found {
  deployment: Deployment;
  by: 'id' | 'name';
  /** Why the operator would take over a deployment found by name; unset when it would not. */
  adopts?: string;
}

/** The service deployment the operator would act on: by known id, else by exact name. */
async function findLive(
  cr: DeploymentResource,
  client: ServiceClient,
  notes: string[],
): Promise<Found | undefined> {
  const id = knownId(cr);
  if (id) {
    const page = await client.listDeployments({ deployment_ids: [id], limit: 1 });
    const deployment = page.resources.find((d) => d.id === id);
    if (deployment) return { deployment, by: 'id' };
    notes.push(`service deployment ${id} no longer exists; the operator would create it again`);
  }
  const byName = await findDeploymentByName(client, deploymentName(cr));
  if (!byName) return undefined;
  if (cr.spec.adopt) return { deployment: byName, by: 'name', adopts: 'spec.adopt' };
  if (cr.metadata.annotations?.[annotations.createPending] !== undefined)
    return { deployment: byName, by: 'name', adopts: 'an earlier create of this resource' };
  return { deployment: byName, by: 'name' };
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
    for (const name of new Set(refs))
      secrets.set(name, await getOrUndefined<Secret>(kube, SECRETS, name, namespace));
    if (spec.listenerRef) {
      listeners.set(
        spec.listenerRef.name,
        await getOrUndefined<ListenerResource>(kube, LISTENERS, spec.listenerRef.name),
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
      lines.push(`${head}create`, '  POST /v2/deployments', indent(serialize('yaml', r.request), '    '));
      break;
    case 'patch':
      lines.push(
        `${head}${adopted}patch ${Object.keys(r.patch).join(', ')}`,
        `  PATCH /v2/deployments/${r.deploymentId}`,
        indent(serialize('yaml', r.patch), '    '),
      );
      if (r.patch.secrets) lines.push('    # secrets: names only; values are not shown');
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
