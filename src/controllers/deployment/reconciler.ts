// Reconciles one Deployment resource (DESIGN.md §3). Level-triggered: it reads the resource from the
// cache and never assumes which event woke it. The logic lives in pure functions (desired, diff,
// conditions, status); this file is the IO between them.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { annotations, finalizer } from '../../api/constants.ts';
import type { DeploymentResource, DeploymentStatus } from '../../api/deployment.ts';
import type { Informer } from '../../runtime/informer.ts';
import { buildEvent, type KubeClient, splitKey } from '../../runtime/kube.ts';
import type { ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import { type Deployment, type Revision, terminalRevisionStatuses } from '../../service/wire.ts';
import { isRefusal, serviceTrouble } from '../conditions.ts';
import { OutcomeMemo } from '../memo.ts';
import { DEPLOYMENTS } from '../resources.ts';
import {
  type ConditionSet,
  computeConditions,
  type Observed,
  type Problem,
  pausedConditions,
  toConditions,
} from './conditions.ts';
import { type DesiredDeployment, deploymentName, desiredDeployment } from './desired.ts';
import { diffDeployment } from './diff.ts';
import { type InputSources, resolveInputs } from './inputs.ts';
import type { DeploymentObserver } from './observer.ts';
import { secretsDigest } from './secrets-digest.ts';
import { observedStatus, revisionSummaries, statusUnchanged } from './status.ts';

const component = 'agent-deploy-operator';
/** How soon a Secret the operator was forbidden to read is tried again. */
const forbiddenRetryMs = 30_000;
/** Synced reasons that name an input the resource waits for: each transition to one is an Event. */
const inputReasons: ReadonlySet<string> = new Set(['SecretNotFound', 'SecretForbidden', 'ListenerNotReady']);

export interface ReconcilerDeps {
  kube: KubeClient;
  service: ServiceClient;
  observer: DeploymentObserver;
  deployments: Informer<DeploymentResource>;
  /** The resources bound to a service deployment id (an index of the informer). */
  owners: (deploymentId: string) => DeploymentResource[];
  inputs: InputSources;
  /** How old a cached observation may be for a resource with nothing in flight. */
  resyncMs: number;
  logger: Logger;
}

interface Outcome {
  observed?: Observed;
  problem?: Problem;
  revisions?: Revision[];
  digest?: string;
}

export class DeploymentReconciler {
  readonly #d: ReconcilerDeps;
  /** Consecutive polls of a revision in flight, per key: the poll interval backs off. */
  readonly #polls = new Map<string, number>();
  /**
   * Per resource, the create the service refused (a digest of generation and body) and why: it is not
   * sent again until the spec or its inputs change. Without this, the create-pending annotation written
   * and removed around each refused create is itself a change that wakes the resource: a hot loop.
   */
  readonly #refused = new OutcomeMemo<Problem>(Number.POSITIVE_INFINITY);

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const cached = this.#d.deployments.get(key);
    if (!cached) {
      this.#polls.delete(key);
      this.#refused.delete(key);
      return undefined;
    }
    let cr = structuredClone(cached);
    const log = this.#d.logger.child({ deployment: key });

    if (cr.metadata.annotations?.[annotations.paused] === 'true') {
      // Nothing of a newer generation was applied: observedGeneration stays where it was, so
      // `kubectl wait --for=condition=Ready` and kstatus do not take an unapplied change as done.
      await this.#writeStatus(cr, pausedConditions(cr.status?.conditions), {}, cr.status?.observedGeneration);
      return undefined;
    }
    if (cr.metadata.deletionTimestamp) {
      await this.#finalize(cr, log);
      return undefined;
    }
    cr = await this.#ensureFinalizer(cr);

    const outcome = await this.#sync(cr, log).catch(async (err: unknown) => {
      // Retryable trouble (service 5xx, timeouts, apiserver conflicts): say so, then back off.
      if (err instanceof ServiceError) {
        await this.#writeStatus(cr, computeConditions(undefined, serviceTrouble(err)), {}).catch(() => {});
      }
      throw err;
    });
    const conditions = computeConditions(outcome.observed, outcome.problem);
    const previous = cr.status;
    const written = await this.#writeStatus(cr, conditions, outcome);
    this.#emitTransitions(cr, previous, written, log);
    // The operator's RBAC is not watched: look again after a while.
    if (outcome.problem?.reason === 'SecretForbidden') return { requeueAfterMs: forbiddenRetryMs };

    if (conditions.Reconciling.status === 'True' && outcome.observed && !outcome.problem) {
      const polls = (this.#polls.get(key) ?? 0) + 1;
      this.#polls.set(key, polls);
      return { requeueAfterMs: Math.min(1000 * 2 ** (polls - 1), 30_000) };
    }
    this.#polls.delete(key);
    return undefined;
  }

  /** Makes the service hold the spec; returns what it then observed, or why it could not. */
  async #sync(cr: DeploymentResource, log: Logger): Promise<Outcome> {
    const resolved = await resolveInputs(cr, this.#d.inputs);
    if ('problem' in resolved) return { problem: resolved.problem };
    const desired = desiredDeployment(cr, resolved.inputs);
    const digest = secretsDigest(cr.metadata.uid!, resolved.inputs.secrets);

    const inFlight = this.#polls.has(keyOf(cr));
    let deployment: Deployment | null = null;
    let id = knownId(cr);
    if (id) {
      deployment = await this.#d.observer.get(id, inFlight ? 0 : this.#d.resyncMs);
      if (!deployment) {
        log.warn({ deploymentId: id }, 'service deployment is gone; creating it again');
        this.#event(
          cr,
          'Warning',
          'NotFound',
          `service deployment ${id} no longer exists; creating it again`,
        );
        this.#d.observer.forget(id);
        cr = await this.#patchAnnotations(cr, { [annotations.deploymentId]: null });
        id = undefined;
      }
    }
    if (!deployment) {
      const made = await this.#createOrAdopt(cr, desired, log);
      if ('problem' in made) return { problem: made.problem };
      deployment = made.deployment;
      cr = made.cr;
    }

    const diff = diffDeployment(desired, deployment, { digest, lastSentDigest: cr.status?.secretsDigest });
    let problem: Problem | undefined;
    if (diff.immutable.length > 0) {
      problem = {
        reason: 'InvalidSpec',
        message: `${diff.immutable.join(', ')} differ from the service deployment and cannot be changed after creation`,
        stalled: true,
      };
    } else if (diff.patch) {
      try {
        deployment = await this.#d.service.patchDeployment(deployment.id, diff.patch);
        this.#d.observer.record(deployment);
        log.info({ fields: Object.keys(diff.patch) }, 'patched service deployment');
        this.#event(cr, 'Normal', 'Updated', `patched ${Object.keys(diff.patch).join(', ')}`);
      } catch (err) {
        problem = refusal(err);
      }
    }
    const sentDigest = diff.patch?.secrets && !problem ? digest : (cr.status?.secretsDigest ?? digest);
    const revisions = await this.#revisionsIfMoving(deployment, cr.status);
    const latest = revisions?.find((r) => r.id === deployment.latest_revision_id);
    const observed: Observed = { deployment };
    if (latest) observed.latestRevision = { id: latest.id, status: latest.status };
    else if (
      cr.status?.latestRevision?.id === deployment.latest_revision_id &&
      deployment.latest_revision_id !== deployment.active_revision_id
    )
      observed.latestRevision = cr.status.latestRevision;
    return {
      observed,
      ...(problem ? { problem } : {}),
      ...(revisions ? { revisions } : {}),
      digest: sentDigest,
    };
  }

  /** Reads the revision list only while the latest revision is not settled: the cheap path has none. */
  async #revisionsIfMoving(
    d: Deployment,
    status: DeploymentStatus | undefined,
  ): Promise<Revision[] | undefined> {
    if (!d.latest_revision_id || d.latest_revision_id === d.active_revision_id) return undefined;
    const known = status?.latestRevision;
    if (known?.id === d.latest_revision_id && terminalRevisionStatuses.has(known.status)) return undefined;
    return (await this.#d.service.listRevisions(d.id, { limit: 100 })).resources;
  }

  /**
   * Creates the service deployment, crash-safely: a create-pending marker is written before the POST
   * and the id right after it, so a create whose answer was lost is found by name, not repeated.
   */
  async #createOrAdopt(
    cr: DeploymentResource,
    desired: DesiredDeployment,
    log: Logger,
  ): Promise<{ deployment: Deployment; cr: DeploymentResource } | { problem: Problem }> {
    const name = deploymentName(cr);
    const pending = cr.metadata.annotations?.[annotations.createPending] !== undefined;
    const key = keyOf(cr);
    const attempt = createHash('sha256')
      .update(`${cr.metadata.generation}\n${JSON.stringify(desired.create)}`)
      .digest('base64url');
    const refused = this.#refused.get(key, attempt);
    if (!pending && refused) return { problem: refused };
    const refuse = (problem: Problem) => {
      this.#refused.set(key, attempt, problem);
      return { problem };
    };
    this.#refused.delete(key);
    if (pending) {
      const found = await this.#findByName(name);
      if (found) return this.#claim(cr, found, 'an earlier create of this resource', log);
    } else {
      cr = await this.#patchAnnotations(cr, { [annotations.createPending]: new Date().toISOString() });
    }
    try {
      const deployment = await this.#d.service.createDeployment(desired.create);
      this.#d.observer.record(deployment);
      cr = await this.#patchAnnotations(cr, {
        [annotations.deploymentId]: deployment.id,
        [annotations.createPending]: null,
      });
      log.info({ deploymentId: deployment.id }, 'created service deployment');
      this.#event(cr, 'Normal', 'Created', `created service deployment ${name} (${deployment.id})`);
      return { deployment, cr };
    } catch (err) {
      if (!isRefusal(err)) throw err; // it may have happened: keep the marker
      if (err.isConflict) {
        const found = await this.#findByName(name);
        if (found && (cr.spec.adopt || pending))
          return this.#claim(cr, found, cr.spec.adopt ? 'spec.adopt' : 'an earlier create', log);
        await this.#patchAnnotations(cr, { [annotations.createPending]: null });
        return refuse({
          reason: 'AlreadyExists',
          message: found
            ? `a service deployment named ${name} already exists (${found.id}); set spec.adopt: true to take it over`
            : `the service refused the name ${name}: ${err.detail}`,
          stalled: true,
        });
      }
      await this.#patchAnnotations(cr, { [annotations.createPending]: null });
      return refuse(refusal(err));
    }
  }

  /** Takes an existing service deployment, unless another resource already has it. */
  async #claim(cr: DeploymentResource, found: Deployment, why: string, log: Logger) {
    const rival = this.#d.owners(found.id).find((other) => other.metadata.uid !== cr.metadata.uid);
    if (rival) {
      return {
        problem: {
          reason: 'Conflict' as const,
          message: `service deployment ${found.id} belongs to ${rival.metadata.namespace}/${rival.metadata.name}`,
          stalled: true,
        },
      };
    }
    this.#d.observer.record(found);
    const updated = await this.#patchAnnotations(cr, {
      [annotations.deploymentId]: found.id,
      [annotations.createPending]: null,
    });
    log.info({ deploymentId: found.id, why }, 'adopted service deployment');
    this.#event(
      updated,
      'Normal',
      'Adopted',
      `took over service deployment ${found.name} (${found.id}) because of ${why}`,
    );
    return { deployment: found, cr: updated };
  }

  async #findByName(name: string): Promise<Deployment | undefined> {
    const candidates = await this.#d.service.listAllDeployments({ name_contains: name });
    return candidates.find((d) => d.name === name);
  }

  async #finalize(cr: DeploymentResource, log: Logger): Promise<void> {
    if (!cr.metadata.finalizers?.includes(finalizer)) return;
    let id = knownId(cr);
    if (!id && cr.metadata.annotations?.[annotations.createPending] !== undefined)
      id = (await this.#findByName(deploymentName(cr)))?.id;
    if (id && cr.spec.deletionPolicy === 'Delete') {
      try {
        await this.#d.service.deleteDeployment(id);
        log.info({ deploymentId: id }, 'deleted service deployment');
      } catch (err) {
        if (!(err instanceof ServiceError && err.isNotFound)) throw err;
      }
      this.#d.observer.forget(id);
    }
    await this.#setFinalizers(
      cr,
      (cr.metadata.finalizers ?? []).filter((f) => f !== finalizer),
    );
  }

  /** The finalizer is there exactly when deletion must reach the service (deletionPolicy Delete). */
  async #ensureFinalizer(cr: DeploymentResource): Promise<DeploymentResource> {
    const has = cr.metadata.finalizers?.includes(finalizer) ?? false;
    const wants = cr.spec.deletionPolicy === 'Delete';
    if (has === wants) return cr;
    const finalizers = wants
      ? [...(cr.metadata.finalizers ?? []), finalizer]
      : (cr.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    return this.#setFinalizers(cr, finalizers);
  }

  async #setFinalizers(cr: DeploymentResource, finalizers: string[]): Promise<DeploymentResource> {
    const { name, namespace } = splitKey(keyOf(cr));
    return this.#d.kube.mergePatch<DeploymentResource>(
      DEPLOYMENTS,
      name,
      namespace,
      { metadata: { finalizers } },
      {
        resourceVersion: cr.metadata.resourceVersion!,
      },
    );
  }

  /** Annotation writes use optimistic concurrency: a stale view fails with 409 and is retried. */
  async #patchAnnotations(
    cr: DeploymentResource,
    values: Record<string, string | null>,
  ): Promise<DeploymentResource> {
    const { name, namespace } = splitKey(keyOf(cr));
    const updated = await this.#d.kube.mergePatch<DeploymentResource>(
      DEPLOYMENTS,
      name,
      namespace,
      { metadata: { annotations: values } },
      {
        resourceVersion: cr.metadata.resourceVersion!,
      },
    );
    return { ...cr, metadata: updated.metadata };
  }

  /** Writes status through the subresource, and only when it changes. Returns what status now is. */
  /** `generation`: the generation this status speaks for (undefined: none was applied yet). */
  async #writeStatus(
    cr: DeploymentResource,
    set: ConditionSet,
    outcome: Outcome,
    generation: number | undefined = cr.metadata.generation ?? 0,
  ): Promise<DeploymentStatus> {
    const now = new Date().toISOString();
    const prev = cr.status;
    const next: DeploymentStatus = {
      ...prev,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      conditions: toConditions(set, prev?.conditions, generation, now),
    };
    if (outcome.observed) {
      const d = outcome.observed.deployment;
      Object.assign(next, observedStatus(d, revisionSummaries(d, outcome.revisions, prev?.revisions)));
    }
    if (outcome.digest) next.secretsDigest = outcome.digest;
    if (statusUnchanged(prev, next)) return next;
    const { name, namespace } = splitKey(keyOf(cr));
    await this.#d.kube.mergePatch(DEPLOYMENTS, name, namespace, { status: next }, { subresource: 'status' });
    return next;
  }

  #emitTransitions(
    cr: DeploymentResource,
    before: DeploymentStatus | undefined,
    after: DeploymentStatus,
    log: Logger,
  ): void {
    const latest = after.latestRevision;
    const was = before?.latestRevision;
    if (latest && (latest.id !== was?.id || latest.status !== was?.status)) {
      if (latest.status === 'DEPLOYED')
        this.#event(cr, 'Normal', 'RevisionDeployed', `revision ${latest.id} is deployed`);
      else if (latest.status.endsWith('_FAILED'))
        this.#event(cr, 'Warning', 'RevisionFailed', `revision ${latest.id} is ${latest.status}`);
    }
    const stalled = after.conditions?.find((c) => c.type === 'Stalled');
    const wasStalled = before?.conditions?.find((c) => c.type === 'Stalled');
    if (
      stalled?.status === 'True' &&
      (wasStalled?.status !== 'True' || wasStalled.reason !== stalled.reason)
    ) {
      log.warn({ reason: stalled.reason, message: stalled.message }, 'stalled');
      this.#event(cr, 'Warning', stalled.reason, stalled.message);
      return;
    }
    // A missing input (a Secret, a Listener) is a failure a person should see where they look.
    const synced = after.conditions?.find((c) => c.type === 'Synced');
    const wasSynced = before?.conditions?.find((c) => c.type === 'Synced');
    if (
      synced?.status === 'False' &&
      inputReasons.has(synced.reason) &&
      (wasSynced?.status !== 'False' || wasSynced.reason !== synced.reason)
    ) {
      log.warn({ reason: synced.reason, message: synced.message }, 'not synced');
      this.#event(cr, 'Warning', synced.reason, synced.message);
    }
  }

  #event(cr: DeploymentResource, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const involved = {
      apiVersion: cr.apiVersion,
      kind: cr.kind,
      name: cr.metadata.name!,
      namespace: cr.metadata.namespace!,
      uid: cr.metadata.uid!,
    };
    this.#d.kube
      .createEvent(buildEvent(involved, { type, reason, message }, component, new Date()))
      .catch((err: Error) => {
        this.#d.logger.warn({ err: err.message, reason }, 'could not record an event');
      });
  }
}

export const keyOf = (cr: DeploymentResource) => `${cr.metadata.namespace}/${cr.metadata.name}`;

/** The id this resource is bound to: the annotation survives a lost status. */
export const knownId = (cr: DeploymentResource): string | undefined =>
  cr.metadata.annotations?.[annotations.deploymentId] || cr.status?.deploymentId || undefined;

/** A definite refusal from the service (4xx): Stalled with the service's own words. */
function refusal(err: unknown): Problem {
  if (!isRefusal(err)) throw err;
  if (err.isConflict) return { reason: 'ServiceError', message: err.detail, stalled: false };
  if (err.isForbidden) return { reason: 'Forbidden', message: err.detail, stalled: true };
  return { reason: 'InvalidSpec', message: err.detail, stalled: true };
}
