// Which workspace each resource acts in, and whether it may act: the one place that answers "how does
// this resource reach the service". The workspace controller sets each workspace's verdict; the managed
// controllers ask before any call and are woken when a verdict changes (so a resource waiting for its
// workspace wakes on the workspace's own events, not on a timer).

import { isDeepStrictEqual } from 'node:util';
import type { Informer } from '../../runtime/informer.ts';
import { type KubeObject, objectKey } from '../../runtime/kube-objects.ts';
import type { ServiceClient } from '../../service/client.ts';
import type { Problem } from '../managed/conditions.ts';
import type { KeyRef, ServiceSettings, WorkspaceConnection } from './connection.ts';
import { describeWorkspace, ownWorkspace, type Referrer, type WorkspaceKey, workspaceKeyOf } from './refs.ts';

/** How a resource reaches the service now. */
export type Reach =
  | { connection: WorkspaceConnection }
  /** The workspace exists and has not been checked yet: its check wakes the resource. */
  | { pending: true }
  | { problem: Problem };

/** What the workspace controller found: the key works, or why not. */
export type Verdict = { ready: true } | { problem: Problem };

interface Entry {
  connection: WorkspaceConnection | undefined;
  verdict: Verdict | undefined;
}

export const byWorkspace = 'workspace';

type User = KubeObject & Referrer;

export interface WorkspacesOptions {
  /** The workspace of a resource that names none (`default`, or --default-workspace). */
  fallback: WorkspaceKey;
  /** The operator's own connection (its flags); absent when it was given no API key. */
  own: WorkspaceConnection | undefined;
  /** Whether a Workspace or ClusterWorkspace object with this key exists in the cache. */
  exists(key: WorkspaceKey): boolean;
  /** A client for a workspace's settings, with its key read from `secret`. */
  connect(key: WorkspaceKey, settings: ServiceSettings, secret: KeyRef): WorkspaceConnection;
}

export class Workspaces {
  readonly fallback: WorkspaceKey;
  /** Every client of the operator has an auth gate (see `connect` in the operator command). */
  readonly holdsCallsOnRejectedKey = true;
  readonly #options: WorkspacesOptions;
  readonly #entries = new Map<WorkspaceKey, Entry>();
  readonly #users: Informer<User>[] = [];
  readonly #changeListeners = new Set<(key: WorkspaceKey) => void>();
  readonly #restoredListeners = new Set<() => void>();
  readonly #usersListeners = new Set<(key: WorkspaceKey) => void>();

  constructor(options: WorkspacesOptions) {
    this.fallback = options.fallback;
    this.#options = options;
    if (options.own) this.#watchGate(options.own.service);
  }

  /** How `cr` reaches the service now. */
  of(cr: Referrer): Reach {
    return this.reach(this.keyOf(cr));
  }

  keyOf(cr: Referrer): WorkspaceKey {
    return workspaceKeyOf(cr, this.fallback);
  }

  reach(key: WorkspaceKey): Reach {
    if (key === ownWorkspace) {
      const own = this.#options.own;
      return own
        ? { connection: own }
        : notReady(
            key,
            'the operator has no API key of its own (--api-key-file or AGENT_DEPLOY_API_KEY); name a workspace in spec.workspaceRef',
          );
    }
    const entry = this.#entries.get(key);
    const verdict = entry?.verdict;
    if (verdict && 'ready' in verdict && entry.connection) return { connection: entry.connection };
    if (verdict && 'problem' in verdict) return notReady(key, verdict.problem.message);
    if (this.#options.exists(key)) return { pending: true };
    return notReady(key, 'not found');
  }

  /**
   * The connection for a workspace's settings and Secret: the one it has when they are the same, else a
   * new one (the old one closes once its calls in flight are done).
   */
  connect(key: WorkspaceKey, settings: ServiceSettings, secret: KeyRef): WorkspaceConnection {
    const entry = this.#entries.get(key) ?? { connection: undefined, verdict: undefined };
    const current = entry.connection;
    if (
      current &&
      isDeepStrictEqual(current.settings, settings) &&
      isDeepStrictEqual(current.apiKey?.ref, secret)
    )
      return current;
    const connection = this.#options.connect(key, settings, secret);
    this.#watchGate(connection.service);
    entry.connection = connection;
    entry.verdict = undefined;
    this.#entries.set(key, entry);
    void current?.close();
    return connection;
  }

  /** The connection a workspace has now, if any. */
  connection(key: WorkspaceKey): WorkspaceConnection | undefined {
    return this.#entries.get(key)?.connection;
  }

  /** Records what the workspace controller found; wakes the workspace's resources when that changes. */
  set(key: WorkspaceKey, verdict: Verdict): void {
    const entry = this.#entries.get(key) ?? { connection: undefined, verdict: undefined };
    const before = describeVerdict(entry.verdict);
    entry.verdict = verdict;
    this.#entries.set(key, entry);
    if (describeVerdict(verdict) !== before) this.#emit(this.#changeListeners, key);
  }

  /** The workspace is gone: its connection closes and its resources are told. */
  async drop(key: WorkspaceKey): Promise<void> {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#emit(this.#changeListeners, key);
    await entry.connection?.close();
  }

  /** A managed kind's informer: its resources are the workspaces' users. */
  track<T extends User>(informer: Informer<T>): void {
    const users = informer as unknown as Informer<User>;
    users.addIndex(byWorkspace, (cr) => [this.keyOf(cr)]);
    this.#users.push(users);
    const changed = (cr: User) => this.#emit(this.#usersListeners, this.keyOf(cr));
    users.addHandlers({ onAdd: changed, onUpdate: changed, onDelete: changed });
  }

  /** The resources that name a workspace (as `Kind namespace/name`), sorted. */
  users(key: WorkspaceKey): string[] {
    return this.#users
      .flatMap((informer) => informer.byIndex(byWorkspace, key).map((cr) => `${cr.kind} ${objectKey(cr)}`))
      .sort();
  }

  /** Called with a workspace whose verdict changed (or that went away). */
  onChange(listener: (key: WorkspaceKey) => void): void {
    this.#changeListeners.add(listener);
  }

  /** Called with a workspace one of whose resources was added, changed or deleted. */
  onUsersChanged(listener: (key: WorkspaceKey) => void): void {
    this.#usersListeners.add(listener);
  }

  /** Called when any workspace's client has its key accepted again after a rejection. */
  onAuthRestored(listener: () => void): void {
    this.#restoredListeners.add(listener);
  }

  async close(): Promise<void> {
    const connections = [...this.#entries.values()].flatMap((e) => (e.connection ? [e.connection] : []));
    this.#entries.clear();
    await Promise.all([...connections.map((c) => c.close()), this.#options.own?.close()]);
  }

  #watchGate(service: ServiceClient): void {
    service.onAuthRestored(() => {
      for (const listener of this.#restoredListeners) listener();
    });
  }

  #emit(listeners: Set<(key: WorkspaceKey) => void>, key: WorkspaceKey): void {
    for (const listener of listeners) listener(key);
  }
}

const notReady = (key: WorkspaceKey, why: string): Reach => ({
  problem: {
    reason: 'WorkspaceNotReady',
    message: `${describeWorkspace(key)}: ${why}`,
    stalled: false,
  },
});

const describeVerdict = (verdict: Verdict | undefined) =>
  verdict === undefined ? 'unknown' : 'ready' in verdict ? 'ready' : verdict.problem.message;
