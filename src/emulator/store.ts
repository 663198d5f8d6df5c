// The emulator's in-memory state: plain data built from a seed, changed only by the route handlers
// after they have validated a request in full.
import type {
  AgentConnection,
  Listener,
  OAuthToken,
  Secret,
  SecretReference,
  Source,
  SourceRevisionConfigInput,
} from '../service/wire.ts';
import type { EmulatorConfig } from './config.ts';
import type { FaultConfig } from './faults.ts';
import type { RevisionTimeline } from './lifecycle.ts';
import type { EmulatedSourceConfig } from './profile-wire.ts';
import { deletionPhaseOf } from './profiles.ts';
import type { Seed, SeedApiKey } from './seed.ts';

export interface StoredRevision extends RevisionTimeline {
  id: string;
  source: Source;
  /** All four fields present, null when unset. */
  config: Required<SourceRevisionConfigInput>;
  commitSha: string | null;
}

export interface StoredDeployment {
  id: string;
  tenantId: string;
  name: string;
  source: Source;
  sourceConfig: EmulatedSourceConfig;
  secrets: Secret[];
  secretReferences: SecretReference[] | null;
  createdAt: number;
  modifiedAt: number;
  deletedAt: number | null;
  /** Oldest first; never empty. */
  revisions: StoredRevision[];
}

export type StoredListener = Listener & { tenant_id: string };
export type StoredToken = OAuthToken & { owner_user_id: string };
export interface TracingProject {
  name: string;
  tenant_id: string;
  deployment_id: string | null;
}

export interface State {
  seed: Seed;
  /** Insertion order is creation order. */
  deployments: Map<string, StoredDeployment>;
  listeners: Map<string, StoredListener>;
  tokens: Map<string, StoredToken>;
  connections: AgentConnection[];
  tracingProjects: TracingProject[];
  /** The keys accepted now: the seed's, changed by POST /_emulator/api-keys (rotation). */
  apiKeys: SeedApiKey[];
  /** "METHOD /path/template" → number of requests that reached that interface route. */
  calls: Map<string, number>;
  /** Tenant → "METHOD /path/template" → number of authenticated requests of that tenant. */
  tenantCalls: Map<string, Map<string, number>>;
  /** HTTP status → number of answers given on interface routes (e.g. how many keys were rejected). */
  responses: Map<number, number>;
  faults: FaultConfig | null;
  /** Added to the wall clock; moved forward by POST /_emulator/clock. */
  clockOffsetMs: number;
}

export function createState(seed: Seed): State {
  const tenants = [...new Set(seed.api_keys.map((k) => k.tenant_id))];
  return {
    seed,
    deployments: new Map(),
    listeners: new Map(seed.listeners.map((l) => [l.id, structuredClone(l)])),
    tokens: new Map(seed.tokens.map((t) => [t.id, structuredClone(t)])),
    connections: [],
    tracingProjects: seed.tracing_projects.flatMap((p) =>
      typeof p === 'string'
        ? tenants.map((tenant_id) => ({ name: p, tenant_id, deployment_id: null }))
        : [{ ...p, deployment_id: null }],
    ),
    apiKeys: structuredClone(seed.api_keys),
    calls: new Map(),
    tenantCalls: new Map(),
    responses: new Map(),
    faults: null,
    clockOffsetMs: 0,
  };
}

export const clock = (state: State): number => Date.now() + state.clockOffsetMs;

/** Removes deployments whose deletion finished (its phases are over), with their tracing projects. */
export function purgeDeleted(state: State, now: number, config: EmulatorConfig): void {
  for (const [id, d] of state.deployments) {
    if (d.deletedAt !== null && deletionPhaseOf(config, d.deletedAt, now) === null) {
      state.deployments.delete(id);
      state.tracingProjects = state.tracingProjects.filter((p) => p.deployment_id !== id);
    }
  }
}

/** A tenant sees only its own deployments: another tenant's id is answered as unknown. */
export const deploymentOf = (state: State, tenantId: string, id: string): StoredDeployment | undefined => {
  const d = state.deployments.get(id);
  return d?.tenantId === tenantId ? d : undefined;
};

export const listenerOf = (state: State, tenantId: string, id: string): StoredListener | undefined => {
  const l = state.listeners.get(id);
  return l?.tenant_id === tenantId ? l : undefined;
};

export const tenantOfUser = (state: State, userId: string): string | undefined =>
  state.seed.api_keys.find((k) => k.user_id === userId)?.tenant_id;
