// The Workspace and ClusterWorkspace controller: reads each workspace's key from its Secret, checks it
// with one cheap authenticated call (again only when the URL, tenant or key changes, or its client's
// auth gate opens or closes: never on a resync), tells the registry, and writes the four conditions.
// Deletion is held by the finalizer while resources still name the workspace; status.usedBy lists them.
import { createHash } from 'node:crypto';
import { finalizer } from '../../api/constants.ts';
import type { AnyWorkspaceResource } from '../../api/workspace.ts';
import { Controller, watchSecondary } from '../../runtime/controller.ts';
import { SECRETS } from '../../runtime/kube-objects.ts';
import { type ConditionSet, toConditions } from '../managed/conditions.ts';
import { ResourceIO } from '../managed/resource-io.ts';
import { announcedOf, transitionEvents } from '../managed/transitions.ts';
import { CLUSTER_WORKSPACES, WORKSPACES } from '../resources.ts';
import { SecretReader } from '../secret-reader.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import type { KeyRef, WorkspaceConnection } from './connection.ts';
import { keyOfWorkspace, parseWorkspaceKey, type WorkspaceKey } from './refs.ts';
import type { Verdict } from './registry.ts';
import {
  probeVerdict,
  readyMessage,
  secretProblem,
  settingsOf,
  usedByLimit,
  workspaceConditions,
} from './verdict.ts';

const bySecret = 'secret';

export function workspaceController(context: ControllerContext): OperatorController {
  const { kube, workspaces, logger } = context;
  const defaults = context.workspaceDefaults;
  const namespaced = context.informers.resource<AnyWorkspaceResource>(WORKSPACES);
  const clustered = context.informers.resource<AnyWorkspaceResource>(CLUSTER_WORKSPACES);
  const secretKey = (ws: AnyWorkspaceResource) => {
    const { secret } = settingsOf(ws, defaults);
    return [`${secret.namespace}/${secret.name}`];
  };
  namespaced.addIndex(bySecret, secretKey);
  clustered.addIndex(bySecret, secretKey);
  const secrets = context.informers.metadata(SECRETS);
  const reader = new SecretReader(kube, secrets);
  const io = {
    Workspace: new ResourceIO<AnyWorkspaceResource>(kube, WORKSPACES, logger),
    ClusterWorkspace: new ResourceIO<AnyWorkspaceResource>(kube, CLUSTER_WORKSPACES, logger),
  };
  const lookup = (key: WorkspaceKey): AnyWorkspaceResource | undefined => {
    const parsed = parseWorkspaceKey(key);
    if (!parsed) return undefined;
    return parsed.kind === 'Workspace'
      ? namespaced.get(`${parsed.namespace}/${parsed.name}`)
      : clustered.get(parsed.name);
  };

  /** Per workspace: what the last check of which settings and key found (a digest, never the key). */
  const checked = new Map<WorkspaceKey, { digest: string; verdict: Verdict }>();
  /** Per workspace: consecutive checks without an answer, for the backoff. */
  const unanswered = new Map<WorkspaceKey, number>();
  const watchedGates = new WeakSet<WorkspaceConnection>();
  /** A gate that closes or opens makes the last check stale: check again (one call). */
  const watchGate = (connection: WorkspaceConnection) => {
    if (watchedGates.has(connection)) return;
    watchedGates.add(connection);
    const recheck = (when: 'ready' | 'not ready') => () => {
      const last = checked.get(connection.key);
      if (last && ('ready' in last.verdict ? 'ready' : 'not ready') === when) checked.delete(connection.key);
      controller.enqueue(connection.key);
    };
    connection.service.onAuthRejected(recheck('ready'));
    connection.service.onAuthRestored(recheck('not ready'));
  };

  async function verdictOf(key: WorkspaceKey, ws: AnyWorkspaceResource, signal: AbortSignal) {
    const { settings, secret } = settingsOf(ws, defaults);
    const found = await reader.read(secret.namespace, secret.name);
    if ('missing' in found)
      return { settings, secret, verdict: { problem: secretProblem(secret, found.missing) } };
    const encoded = found.data[secret.key];
    const value = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8').trim();
    if (!value) return { settings, secret, verdict: { problem: secretProblem(secret, 'NoKey') } };
    const connection = workspaces.connect(key, settings, secret);
    watchGate(connection);
    connection.apiKey?.set(value);
    const digest = digestOf(settings.serviceUrl, settings.tenantId, secret, value);
    const last = checked.get(key);
    if (last?.digest === digest) return { settings, secret, verdict: last.verdict };
    const answer = await connection.service.checkKey({ signal });
    const verdict = probeVerdict(answer, settings, secret);
    if ('problem' in verdict && verdict.problem.reason === 'Unreachable') checked.delete(key);
    else checked.set(key, { digest, verdict });
    return { settings, secret, verdict };
  }

  async function forget(key: WorkspaceKey, secret: KeyRef | undefined) {
    checked.delete(key);
    unanswered.delete(key);
    if (secret) reader.forget(`${secret.namespace}/${secret.name}`);
    await workspaces.drop(key);
  }

  async function reconcile(key: WorkspaceKey, signal: AbortSignal) {
    const cached = lookup(key);
    if (!cached) return forget(key, undefined);
    let ws = structuredClone(cached);
    const rio = io[ws.kind];
    const users = workspaces.users(key);
    const deleting = ws.metadata.deletionTimestamp !== undefined;
    const hasFinalizer = ws.metadata.finalizers?.includes(finalizer) ?? false;
    if (deleting && users.length === 0) {
      if (hasFinalizer)
        await rio.patchMetadata(
          ws,
          { finalizers: ws.metadata.finalizers!.filter((f) => f !== finalizer) },
          signal,
        );
      return forget(key, settingsOf(ws, defaults).secret);
    }
    if (!deleting && !hasFinalizer)
      ws = await rio.patchMetadata(
        ws,
        { finalizers: [...(ws.metadata.finalizers ?? []), finalizer] },
        signal,
      );

    const { settings, secret, verdict } = await verdictOf(key, ws, signal);
    workspaces.set(key, verdict);
    const heldBy = deleting ? users : [];
    const conditions = workspaceConditions(verdict, readyMessage(settings, secret), heldBy.length);
    await writeStatus(
      ws,
      conditions,
      {
        serviceUrl: settings.serviceUrl,
        ...(settings.tenantId ? { tenantId: settings.tenantId } : {}),
        ...(heldBy.length > 0 ? { usedBy: heldBy.slice(0, usedByLimit) } : {}),
      },
      signal,
    );

    if ('problem' in verdict && verdict.problem.reason === 'Unreachable') {
      const n = (unanswered.get(key) ?? 0) + 1;
      unanswered.set(key, n);
      return { requeueAfterMs: Math.min(1000 * 2 ** (n - 1), 5 * 60_000) };
    }
    unanswered.delete(key);
    return undefined;
  }

  async function writeStatus(
    ws: AnyWorkspaceResource,
    conditions: ConditionSet,
    observed: Record<string, unknown>,
    signal: AbortSignal,
  ) {
    const generation = ws.metadata.generation ?? 0;
    const before = ws.status?.conditions;
    const next = {
      ...observed,
      observedGeneration: generation,
      conditions: toConditions(conditions, before, generation, new Date().toISOString()),
    };
    const rio = io[ws.kind];
    if (!(await rio.writeStatus(ws, next, signal))) return;
    for (const event of transitionEvents(announcedOf(before), next.conditions)) rio.event(ws, event);
  }

  const wsKeys = (ws: AnyWorkspaceResource) => [keyOfWorkspace(ws)];
  const controller: Controller = new Controller({
    name: 'workspace',
    watches: [
      watchSecondary(namespaced, wsKeys),
      watchSecondary(clustered, wsKeys),
      watchSecondary(secrets, (s) => [
        ...namespaced.byIndex(bySecret, `${s.metadata.namespace}/${s.metadata.name}`).map(keyOfWorkspace),
        ...clustered.byIndex(bySecret, `${s.metadata.namespace}/${s.metadata.name}`).map(keyOfWorkspace),
      ]),
    ],
    reconcile,
    concurrency: context.concurrency,
    registry: context.registry,
    logger,
  });
  // A held deletion ends when the last resource naming the workspace goes.
  workspaces.onUsersChanged((key) => {
    if (lookup(key)?.metadata.deletionTimestamp) controller.enqueue(key);
  });
  return {
    controller,
    start: () => controller.start(),
    stop: () => controller.stop(),
  };
}

/** The settings and key a check was for; the key enters only a hash. */
const digestOf = (url: string, tenant: string | undefined, secret: KeyRef, key: string) =>
  createHash('sha256')
    .update(JSON.stringify([url, tenant ?? null, secret, key]))
    .digest('base64url');
