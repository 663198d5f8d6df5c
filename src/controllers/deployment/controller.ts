// Wires the Deployment controller: the shared informers of Deployment resources, Secret identities and
// Listeners, the batched observer of the service, and the shared reconciler. Indexes answer "who refers
// to this" without scanning every resource on each event.
import type { DeploymentResource } from '../../api/deployment.ts';
import type { ListenerResource } from '../../api/listener.ts';
import { watchSecondary } from '../../runtime/controller.ts';
import { objectKey, SECRETS } from '../../runtime/kube-objects.ts';
import { managedController } from '../managed/controller.ts';
import { DEPLOYMENTS, LISTENERS } from '../resources.ts';
import { SecretReader } from '../secret-reader.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import type { WorkspaceConnection } from '../workspace/connection.ts';
import type { WorkspaceKey } from '../workspace/refs.ts';
import { repositoryFinder } from './inputs.ts';
import { deploymentKind, knownId } from './kind.ts';
import { observerMetrics } from './metrics.ts';
import { DeploymentObserver } from './observer.ts';

/** Indexes of the Deployment resources: who reads a Secret, names a Listener, holds a service deployment. */
const bySecret = 'secret';
const byListener = 'listener';
const byDeploymentId = 'deploymentId';

/** `namespace/name` of every Secret the resource reads. */
function secretKeys(d: DeploymentResource): string[] {
  const ns = d.metadata.namespace;
  const names = [
    ...(d.spec.secretsFrom ?? []).map((s) => s.secretRef.name),
    ...(d.spec.secrets ?? []).flatMap((s) => (s.valueFrom ? [s.valueFrom.secretKeyRef.name] : [])),
  ];
  return [...new Set(names)].map((name) => `${ns}/${name}`);
}

export function deploymentController(context: ControllerContext): OperatorController {
  const { kube, resyncMs, workspaces } = context;
  const deployments = context.informers.resource<DeploymentResource>(DEPLOYMENTS);
  deployments.addIndex(bySecret, secretKeys);
  deployments.addIndex(byListener, (d) => (d.spec.listenerRef ? [d.spec.listenerRef.name] : []));
  // Ids are scoped by workspace: each workspace's observer reads its own, with its own key.
  deployments.addIndex(byDeploymentId, (d) => {
    const id = knownId(d);
    return id ? [scopedId(workspaces.keyOf(d), id)] : [];
  });
  const readersOf = (index: string, value: string) => deployments.byIndex(index, value).map(objectKey);
  // Identities only: the data of the few Secrets a resource references is read on demand.
  const secrets = context.informers.metadata(SECRETS);
  const secretReader = new SecretReader(kube, secrets);
  // Nothing is kept for a Secret no resource references any more (indexes are current when handlers run).
  const forgetUnread = (old: DeploymentResource) => {
    for (const key of secretKeys(old))
      if (deployments.byIndex(bySecret, key).length === 0) secretReader.forget(key);
  };
  deployments.addHandlers({ onUpdate: forgetUnread, onDelete: forgetUnread });
  secrets.addHandlers({ onDelete: (s) => secretReader.forget(objectKey(s)) });
  const listeners = context.informers.resource<ListenerResource>(LISTENERS);

  let enqueue: (key: string) => void = () => {};
  const onRefresh = observerMetrics(context.registry);
  let running = false;
  /** The observers made so far, one per workspace in use: started and stopped with the controller. */
  const started = new Set<DeploymentObserver>();
  /** One batched observer per workspace, made on first use, started with the controller. */
  const observer = (workspace: WorkspaceConnection) =>
    workspace.local(
      'deployment-observer',
      () => {
        const made = new DeploymentObserver(workspace.service, {
          resyncMs,
          onChange: (id) => {
            for (const key of readersOf(byDeploymentId, scopedId(workspace.key, id))) enqueue(key);
          },
          liveIds: () => idsOf(deployments.indexValues(byDeploymentId), workspace.key),
          onRefresh: (ids) => onRefresh(workspace.key, ids),
        });
        if (running) made.start();
        started.add(made);
        return made;
      },
      (made) => {
        made.stop();
        started.delete(made);
      },
    );
  const kind = deploymentKind({
    observer,
    owners: (workspace, id) => deployments.byIndex(byDeploymentId, scopedId(workspace.key, id)),
    // Twice the resync period: the observer refreshes every entry within 1.1 periods.
    resyncMs: 2 * resyncMs,
    inputs: (workspace) =>
      workspace.local('deployment-inputs', () => ({
        secret: (namespace, name) => secretReader.read(namespace, name),
        listener: (name) => listeners.get(name),
        repository: repositoryFinder(workspace.service),
        workspaceOf: (cr) => workspaces.keyOf(cr),
      })),
  });
  const managed = managedController(context, {
    name: 'deployment',
    informer: deployments,
    kind,
    secondary: [
      watchSecondary(secrets, (secret) => readersOf(bySecret, objectKey(secret))),
      watchSecondary(listeners, (listener) => readersOf(byListener, listener.metadata.name)),
    ],
    bindEnqueue: (fn) => {
      enqueue = fn;
    },
  });
  return {
    controller: managed.controller,
    async start() {
      await managed.start();
      running = true;
      for (const made of started) made.start();
    },
    async stop() {
      running = false;
      for (const made of started) made.stop();
      await managed.stop();
    },
  };
}

/** A service deployment id within its workspace (ids of two tenants are never compared). */
const scopedId = (workspace: WorkspaceKey, id: string) => `${workspace}#${id}`;

/** The ids of one workspace among the scoped ids. */
function* idsOf(scoped: Iterable<string>, workspace: WorkspaceKey): Iterable<string> {
  const prefix = `${workspace}#`;
  for (const value of scoped) if (value.startsWith(prefix)) yield value.slice(prefix.length);
}
