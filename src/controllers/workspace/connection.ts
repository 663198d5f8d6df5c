// One workspace's way to the service: its own client (so its own connection pool and its own auth
// gate: a rejected key holds back this workspace's calls only) and what kinds keep per workspace (the
// Deployment kind's batched observer, say), closed with it.
import type { ServiceClient } from '../../service/client.ts';
import type { ApiKeySource, KeyOrigin } from '../../service/key-source.ts';
import type { WorkspaceKey } from './refs.ts';

export interface ServiceSettings {
  serviceUrl: string;
  tenantId?: string | undefined;
}

/** Where a workspace's API key is: a Secret and its key (a ClusterWorkspace's namespace defaulted). */
export interface KeyRef {
  namespace: string;
  name: string;
  key: string;
}

interface Local {
  value: unknown;
  close: (() => void) | undefined;
}

export class WorkspaceConnection {
  readonly key: WorkspaceKey;
  readonly service: ServiceClient;
  readonly settings: ServiceSettings;
  /** The key read from the workspace's Secret; absent for the operator's own connection. */
  readonly apiKey: SecretKeySource | undefined;
  readonly #local = new Map<string, Local>();

  constructor(
    key: WorkspaceKey,
    service: ServiceClient,
    settings: ServiceSettings,
    apiKey?: SecretKeySource | undefined,
  ) {
    this.key = key;
    this.service = service;
    this.settings = settings;
    this.apiKey = apiKey;
  }

  /** What a kind keeps for this workspace under `slot`, made on first use and closed with it. */
  local<T>(slot: string, make: () => T, close?: (value: T) => void): T {
    let held = this.#local.get(slot);
    if (!held) {
      const value = make();
      held = { value, close: close && (() => close(value)) };
      this.#local.set(slot, held);
    }
    return held.value as T;
  }

  async close(): Promise<void> {
    for (const held of this.#local.values()) held.close?.();
    this.#local.clear();
    await this.service.close();
  }
}

/** An API key read from a Secret by the workspace controller, which sets it again when the Secret changes. */
export class SecretKeySource implements ApiKeySource {
  readonly origin: KeyOrigin;
  readonly ref: KeyRef;
  #key = '';

  constructor(ref: KeyRef) {
    this.ref = ref;
    this.origin = { kind: 'secret', ...ref };
  }

  key(): string {
    return this.#key;
  }

  /** The Secret is the source: the controller sets a new key when it changes. */
  reload(): boolean {
    return false;
  }

  set(key: string): void {
    this.#key = key;
  }
}
