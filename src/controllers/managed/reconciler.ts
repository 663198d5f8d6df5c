// The one lifecycle of a managed resource, for every kind (DESIGN.md §3). Level-triggered: it reads the
// resource from the cache and never assumes which event woke it. The kind observes and plans; this file
// owns the finalizer, the create-pending marker, binding, status writes, events, warn logs, error
// classification and requeue.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { annotations, finalizer } from '../../api/constants.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { KubeClient } from '../../runtime/kube.ts';
import { objectKey } from '../../runtime/kube-objects.ts';
import { ServiceError } from '../../service/errors.ts';
import type { Workspaces } from '../workspace/registry.ts';
import {
  type ConditionSet,
  observedConditions,
  type Problem,
  pausedConditions,
  toConditions,
} from './conditions.ts';
import { isNameTaken, isRefusal, madeNothing, refusalProblem, serviceTrouble } from './errors.ts';
import type { ManagedKind, ObserveContext, Outcome, Via } from './kind.ts';
import { OutcomeMemo } from './memo.ts';
import { isObserved, isPaused } from './plan.ts';
import { type Resource, ResourceIO } from './resource-io.ts';
import { previousObserved } from './status.ts';
import { type Announced, announcedOf, failureOf, transitionEvents } from './transitions.ts';

export interface ManagedReconcilerDeps<T extends Resource> {
  kube: KubeClient;
  workspaces: Workspaces;
  informer: Informer<T>;
  logger: Logger;
}

export type ReconcileResult = { requeueAfterMs?: number } | undefined;

interface Made<X> {
  uid: string;
  id: string;
  external: X;
}

export class ManagedReconciler<T extends Resource, I, O, X, C, P> {
  readonly #kind: ManagedKind<T, I, O, X, C, P>;
  readonly #d: ManagedReconcilerDeps<T>;
  readonly #io: ResourceIO<T>;
  /** Consecutive polls of something in flight, per key: the poll interval backs off. */
  readonly #polls = new Map<string, number>();
  /**
   * Per key, the write the service refused (a digest of generation and request) and why: it is not sent
   * again until the spec or its inputs change, or the memo ages out. Without it, the create-pending
   * marker written and removed around each refused create is itself a change that wakes the resource.
   */
  readonly #refused: OutcomeMemo<Problem>;
  readonly #outcomes: OutcomeMemo<Outcome<X, I>> | undefined;
  /** What this process created or adopted, by key and uid, until the cache shows it recorded. */
  readonly #made = new Map<string, Made<X>>();
  /** Per key (and uid), what the last status write told a person: Events follow it, not the cache. */
  readonly #announced = new Map<string, { uid: string; announced: Announced }>();
  /** Keys (by uid) whose create-pending marker this process wrote and whose creates surely made nothing. */
  readonly #noneMade = new Map<string, string>();

  constructor(kind: ManagedKind<T, I, O, X, C, P>, deps: ManagedReconcilerDeps<T>) {
    this.#kind = kind;
    this.#d = deps;
    this.#io = new ResourceIO(deps.kube, kind.ref, deps.logger);
    this.#refused = new OutcomeMemo(kind.refusalMemoMs);
    this.#outcomes = kind.outcomeMemoMs === undefined ? undefined : new OutcomeMemo(kind.outcomeMemoMs);
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cached = this.#d.informer.get(key);
    if (!cached) {
      this.#forget(key);
      return undefined;
    }
    let cr = structuredClone(cached);
    const log = this.#d.logger.child({ [this.#kind.logKey]: key });

    if (isPaused(cr)) {
      // Nothing of a newer generation was applied: observedGeneration stays where it was, so
      // `kubectl wait --for=condition=Ready` and kstatus do not take an unapplied change as done.
      const conditions = pausedConditions(cr.status && conditionsOf(cr), annotations.paused);
      await this.#write(cr, { observed: previousObserved(cr.status), conditions }, log, signal, false);
      return undefined;
    }
    const deleting = cr.metadata.deletionTimestamp !== undefined;
    // An orphaning deletion needs no service: it goes even when its workspace cannot act.
    if (deleting && !this.#deletes(cr)) return this.#finalize(cr, undefined, log, signal);
    const reach = this.#d.workspaces.of(cr);
    // Not judged yet: the workspace controller's verdict wakes this resource.
    if ('pending' in reach) return undefined;
    if ('problem' in reach) {
      // No call is made; the workspace's next verdict wakes this resource.
      const view = await this.#kind.status(cr, { problem: reach.problem }, undefined);
      await this.#write(cr, view, log, signal, !deleting);
      return undefined;
    }
    const via: Via = { workspace: reach.connection, service: reach.connection.service, signal };
    if (deleting) return this.#finalize(cr, via, log, signal);
    cr = await this.#ensureFinalizer(cr, signal);

    const generation = cr.metadata.generation ?? 0;
    let outcome = this.#outcomes?.get(key, generation);
    if (!outcome) {
      try {
        ({ cr, outcome } = isObserved(cr) ? await this.#mirror(cr, via) : await this.#sync(cr, log, via));
      } catch (err) {
        // Trouble reaching the service (or the apiserver) says so, keeps what was observed, and backs off.
        if (err instanceof ServiceError && !signal.aborted) {
          const view = await this.#kind.status(cr, { problem: serviceTrouble(err) }, via);
          await this.#write(cr, view, log, signal).catch(() => {});
        }
        throw err;
      }
      this.#outcomes?.set(key, generation, outcome);
    }
    let view = await this.#kind.status(cr, outcome, via);
    if (outcome.observing && outcome.target !== undefined)
      view = {
        ...view,
        conditions: observedConditions(view.conditions, this.#kind.describe(outcome.target)),
      };
    await this.#write(cr, view, log, signal);
    return this.#requeue(key, outcome, view.conditions);
  }

  /**
   * spec.managementPolicy Observe: finds what the service holds for the resource and nothing more. No
   * inputs are resolved (they are only needed to write), and no plan of the kind's observe planner writes.
   */
  async #mirror(cr: T, via: Via): Promise<{ cr: T; outcome: Outcome<X, I> }> {
    const kind = this.#kind;
    if (!kind.planObserved) throw new Error(`${kind.logKey} resources have no spec.managementPolicy`);
    const observed = await kind.observe(cr, this.#context(cr, this.#madeFor(cr), via));
    const plan = kind.planObserved(cr, observed);
    const outcome: Outcome<X, I> =
      plan.action === 'observe'
        ? { target: plan.target, looked: true, observing: true }
        : {
            ...(plan.target === undefined ? {} : { target: plan.target }),
            problem: plan.problem,
            looked: true,
          };
    return { cr, outcome };
  }

  /** Makes the service hold the spec; returns what it then holds, or why it could not. */
  async #sync(cr: T, log: Logger, via: Via): Promise<{ cr: T; outcome: Outcome<X, I> }> {
    const kind = this.#kind;
    const key = objectKey(cr);
    const { signal } = via;
    const resolved = await kind.resolve(cr, via);
    if ('problem' in resolved) return { cr, outcome: { problem: resolved.problem } };
    const { inputs } = resolved;

    const made = this.#madeFor(cr);
    const context = this.#context(cr, made, via);
    let observed = await kind.observe(cr, context);
    let plan = kind.plan(cr, inputs, observed);

    if (made && kind.knownId(cr) !== made.id && plan.action !== 'create') {
      cr = await this.#bind(cr, made.id, signal);
    }

    const sent: string[] = [];
    if (plan.action === 'create') {
      const attempt = digest(cr.metadata.generation, plan.request);
      const refused = this.#refused.get(key, attempt);
      if (refused && !context.pending) return { cr, outcome: { problem: refused, inputs } };
      this.#refused.delete(key);
      if (plan.replaces) {
        log.warn({ id: plan.replaces }, 'service object is gone; creating it again');
        this.#io.event(cr, {
          type: 'Warning',
          reason: 'NotFound',
          message: `${plan.replaces} no longer exists on the service; creating it again`,
        });
        kind.forgetExternal?.(plan.replaces, via);
      }
      const created = await this.#create(cr, plan.request, plan.replaces, log, via);
      cr = created.cr;
      if ('external' in created)
        return { cr, outcome: { target: created.external, inputs, looked: true, sent: ['create'] } };
      if (created.problem) {
        this.#refused.set(key, attempt, created.problem);
        return { cr, outcome: { problem: created.problem, inputs } };
      }
      // The name is taken: judge what holds it as the planner would have with that knowledge.
      observed = await kind.observeNameTaken(cr, observed, created.nameTaken!, via);
      plan = kind.plan(cr, inputs, observed);
      if (plan.action === 'create') throw new Error(`${kind.logKey} planner asked to create a taken name`);
      if (!plan.adopt && cr.metadata.annotations?.[annotations.createPending] !== undefined)
        cr = await this.#io.patchMetadata(cr, { annotations: { [annotations.createPending]: null } }, signal);
      if (plan.action === 'cannot') this.#refused.set(key, attempt, plan.problem);
    }

    // What this process took over already is not taken over again while the cache lags behind.
    if (plan.adopt && plan.target !== undefined && made?.id !== kind.idOf(plan.target)) {
      const id = kind.idOf(plan.target);
      cr = await this.#bind(cr, id, signal);
      this.#remember(cr, plan.target);
      log.info({ id, why: plan.adopt.why }, 'adopted service object');
      this.#io.event(cr, {
        type: 'Normal',
        reason: 'Adopted',
        message: `took over ${kind.describe(plan.target)} because of ${plan.adopt.why}`,
      });
    }

    let target = plan.target;
    let problem = plan.action === 'cannot' ? plan.problem : undefined;
    if (plan.action === 'patch') {
      const attempt = digest(cr.metadata.generation, plan.patch);
      problem = this.#refused.get(key, attempt);
      if (!problem) {
        try {
          target = await kind.update(plan.target, plan.patch, via);
          sent.push(...plan.fields);
          if (plan.fields.length > 0) {
            log.info({ id: kind.idOf(target), fields: plan.fields }, 'updated service object');
            this.#io.event(cr, {
              type: 'Normal',
              reason: 'Updated',
              message: `set ${plan.fields.join(', ')} of ${kind.describe(target)}`,
            });
          }
        } catch (err) {
          if (!isRefusal(err)) throw err;
          problem = refusalProblem(err, kind.forbidden?.(cr));
          this.#refused.set(key, attempt, problem);
        }
      }
    }
    return {
      cr,
      outcome: {
        ...(target === undefined ? {} : { target }),
        ...(problem ? { problem } : {}),
        inputs,
        looked: true,
        ...(sent.length > 0 ? { sent } : {}),
      },
    };
  }

  /**
   * Creates the service object. Guarded kinds write the create-pending marker before the call and the id
   * right after it: a create whose answer was lost is found (or reported) by the next reconcile.
   */
  async #create(
    cr: T,
    request: C,
    replaces: string | undefined,
    log: Logger,
    via: Via,
  ): Promise<{ cr: T } & ({ external: X } | { problem?: Problem; nameTaken?: string })> {
    const kind = this.#kind;
    const { signal } = via;
    const key = objectKey(cr);
    const guarded = kind.guardedCreate;
    const marked = cr.metadata.annotations?.[annotations.createPending] !== undefined;
    if (guarded && (!marked || replaces)) {
      // While the key is rejected no marker is written: it would be removed again at once, and the two
      // writes would wake this resource again and again.
      via.service.assertAuthorized(guarded.endpoint);
      const values: Record<string, string | null> = { [annotations.createPending]: new Date().toISOString() };
      if (replaces && kind.idAnnotation) values[kind.idAnnotation] = null;
      cr = await this.#io.patchMetadata(cr, { annotations: values }, signal);
      this.#noneMade.set(key, cr.metadata.uid!);
    }
    let external: X;
    try {
      external = await kind.create(cr, request, via);
    } catch (err) {
      if (isNameTaken(err)) return { cr, nameTaken: err.detail };
      if (isRefusal(err)) {
        if (guarded)
          cr = await this.#io.patchMetadata(
            cr,
            { annotations: { [annotations.createPending]: null } },
            signal,
          );
        this.#noneMade.delete(key);
        return { cr, problem: refusalProblem(err, kind.forbidden?.(cr)) };
      }
      // It may have happened: the marker stays, and the next reconcile looks before it creates again.
      if (!madeNothing(err)) this.#noneMade.delete(key);
      if (guarded)
        log.warn({ err: (err as Error).message }, 'create failed; its outcome is looked up next time');
      throw err;
    }
    this.#noneMade.delete(key);
    const id = kind.idOf(external);
    this.#remember(cr, external);
    if (guarded) cr = await this.#bind(cr, id, signal);
    log.info({ id }, 'created service object');
    this.#io.event(cr, { type: 'Normal', reason: 'Created', message: `created ${kind.describe(external)}` });
    return { cr, external };
  }

  /** Records the id (when the kind keeps it in an annotation) and drops the marker, in one write. */
  async #bind(cr: T, id: string, signal: AbortSignal): Promise<T> {
    const values: Record<string, string | null> = {};
    if (this.#kind.idAnnotation && cr.metadata.annotations?.[this.#kind.idAnnotation] !== id)
      values[this.#kind.idAnnotation] = id;
    if (cr.metadata.annotations?.[annotations.createPending] !== undefined)
      values[annotations.createPending] = null;
    if (Object.keys(values).length === 0) return cr;
    return this.#io.bind(cr, values, signal);
  }

  #remember(cr: T, external: X): void {
    this.#made.set(objectKey(cr), { uid: cr.metadata.uid!, id: this.#kind.idOf(external), external });
  }

  /** What this process made for the resource, while the cache does not show it recorded yet. */
  #madeFor(cr: T): Made<X> | undefined {
    const key = objectKey(cr);
    const made = this.#made.get(key);
    if (!made) return undefined;
    // The annotation, where the kind keeps one: status may hold the id already (an observed resource's did).
    const { idAnnotation } = this.#kind;
    const id = idAnnotation ? cr.metadata.annotations?.[idAnnotation] : this.#kind.knownId(cr);
    const recorded = id === made.id && cr.metadata.annotations?.[annotations.createPending] === undefined;
    if (made.uid !== cr.metadata.uid || recorded) {
      this.#made.delete(key);
      return undefined;
    }
    return made;
  }

  #context(cr: T, made: Made<X> | undefined, via: Via): ObserveContext<X> {
    const key = objectKey(cr);
    const marked = cr.metadata.annotations?.[annotations.createPending] !== undefined;
    return {
      ...via,
      id: made?.id ?? this.#kind.knownId(cr),
      made: made?.external,
      pending: marked && !made && this.#noneMade.get(key) !== cr.metadata.uid,
      polling: this.#polls.has(key),
      observing: isObserved(cr),
    };
  }

  /**
   * Removes the finalizer once the service object is gone; until then, looks again with backoff. `via`
   * is there whenever the kind deletes the service object.
   */
  async #finalize(cr: T, via: Via | undefined, log: Logger, signal: AbortSignal): Promise<ReconcileResult> {
    if (!cr.metadata.finalizers?.includes(finalizer)) return undefined;
    const key = objectKey(cr);
    if (via && this.#deletes(cr)) {
      const state = await this.#kind.remove(cr, this.#context(cr, this.#madeFor(cr), via));
      if (state === 'deleting') {
        // The service deletes asynchronously: the finalizer stays until the object is gone.
        const polls = (this.#polls.get(key) ?? 0) + 1;
        this.#polls.set(key, polls);
        if (polls === 1) log.info('the service is deleting the object; waiting until it is gone');
        return { requeueAfterMs: Math.min(1000 * 2 ** (polls - 1), 30_000) };
      }
      log.info('deleted service object');
    }
    await this.#io.patchMetadata(
      cr,
      { finalizers: cr.metadata.finalizers.filter((f) => f !== finalizer) },
      signal,
    );
    this.#forget(key);
    return undefined;
  }

  /** Deleting the resource deletes the service object: never for an observed resource, whatever its kind says. */
  #deletes(cr: T): boolean {
    return !isObserved(cr) && this.#kind.deletes(cr);
  }

  /** The finalizer is there exactly when deletion must reach the service. */
  async #ensureFinalizer(cr: T, signal: AbortSignal): Promise<T> {
    const has = cr.metadata.finalizers?.includes(finalizer) ?? false;
    const wants = this.#deletes(cr);
    if (has === wants) return cr;
    const finalizers = wants
      ? [...(cr.metadata.finalizers ?? []), finalizer]
      : (cr.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    return this.#io.patchMetadata(cr, { finalizers }, signal);
  }

  /**
   * Writes status when it changes anything, then an Event (and a warn line) for each transition.
   * `applied`: the generation this status speaks for moves to the current one.
   */
  async #write(
    cr: T,
    view: { observed: Record<string, unknown>; conditions: ConditionSet },
    log: Logger,
    signal: AbortSignal,
    applied = true,
  ): Promise<void> {
    const prev = cr.status as { observedGeneration?: number } | undefined;
    const generation = applied ? (cr.metadata.generation ?? 0) : prev?.observedGeneration;
    const before = cr.status ? conditionsOf(cr) : undefined;
    const next = {
      ...view.observed,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      conditions: toConditions(view.conditions, before, generation, new Date().toISOString()),
    };
    if (!(await this.#io.writeStatus(cr, next, signal))) return;
    // What this process last announced is newer than a cache that has not caught up with its own write:
    // a second reconcile from the stale view must not tell the same failure twice.
    const key = objectKey(cr);
    const mine = this.#announced.get(key);
    const told = mine && mine.uid === cr.metadata.uid ? mine.announced : announcedOf(before);
    const now = announcedOf(next.conditions);
    this.#announced.set(key, { uid: cr.metadata.uid!, announced: now });
    const failure = failureOf(next.conditions);
    if (failure && failure.reason !== told.failure)
      log.warn({ reason: failure.reason, message: failure.message }, 'not ready');
    for (const event of transitionEvents(told, next.conditions)) this.#io.event(cr, event);
  }

  #requeue(key: string, outcome: Outcome<X, I>, conditions: ConditionSet): ReconcileResult {
    if (outcome.problem?.retryAfterMs !== undefined) return { requeueAfterMs: outcome.problem.retryAfterMs };
    if (conditions.Reconciling.status === 'True' && outcome.target !== undefined && !outcome.problem) {
      const polls = (this.#polls.get(key) ?? 0) + 1;
      this.#polls.set(key, polls);
      return { requeueAfterMs: Math.min(1000 * 2 ** (polls - 1), 30_000) };
    }
    this.#polls.delete(key);
    return undefined;
  }

  #forget(key: string): void {
    this.#polls.delete(key);
    this.#refused.delete(key);
    this.#outcomes?.delete(key);
    this.#made.delete(key);
    this.#noneMade.delete(key);
    this.#announced.delete(key);
    this.#kind.forget?.(key);
  }
}

const conditionsOf = (cr: Resource) =>
  (cr.status as { conditions?: Parameters<typeof toConditions>[1] } | undefined)?.conditions;

/** A digest of what was asked: the memo of refusals holds no request (nor any secret in it). */
const digest = (generation: number | undefined, request: unknown) =>
  createHash('sha256')
    .update(`${generation}\n${JSON.stringify(request)}`)
    .digest('base64url');
