// Stored records → wire resources, with revision states computed for the current moment.
import type { Listener, Revision } from '../service/wire.ts';
import { type EmulatorConfig, imageVersionByMode } from './config.ts';
import { deploymentStatus, revisionStateAt } from './lifecycle.ts';
import type { EmulatedDeployment, EmulatedSourceConfig } from './profile-wire.ts';
import { deletionPhaseOf, rulesOf } from './profiles.ts';
import type { StoredDeployment, StoredListener, StoredRevision } from './store.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

export function revisionView(r: StoredRevision, config: EmulatorConfig, now: number): Revision {
  const { status, since } = revisionStateAt(r, config.stepMs, now);
  return {
    id: r.id,
    created_at: iso(r.startedAt),
    updated_at: iso(since),
    status,
    source: r.source,
    source_revision_config: { ...r.config, repo_commit_sha: r.commitSha },
  };
}

/** Revisions newest first, as the real service lists them. */
export const revisionViews = (d: StoredDeployment, config: EmulatorConfig, now: number): Revision[] =>
  d.revisions.map((r) => revisionView(r, config, now)).reverse();

/** The stored source_config without the fields the profile never answers. */
function sourceConfigView(
  stored: EmulatedSourceConfig,
  config: EmulatorConfig,
): Partial<EmulatedSourceConfig> {
  const view = structuredClone(stored);
  for (const field of rulesOf(config).hiddenSourceConfigFields) delete view[field];
  return view;
}

export function deploymentView(d: StoredDeployment, config: EmulatorConfig, now: number): EmulatedDeployment {
  const revisions = revisionViews(d, config, now);
  const latest = revisions[0]!;
  const active = revisions.find((r) => r.status === 'DEPLOYED')?.id ?? null;
  const updatedAt = Math.max(d.modifiedAt, ...revisions.map((r) => Date.parse(r.updated_at)));
  return {
    id: d.id,
    tenant_id: d.tenantId,
    name: d.name,
    source: d.source,
    source_config: sourceConfigView(d.sourceConfig, config),
    source_revision_config: latest.source_revision_config,
    secrets: d.secrets.map((s) => ({ ...s })),
    secret_references: d.secretReferences?.map((s) => ({ ...s })) ?? null,
    created_at: iso(d.createdAt),
    updated_at: iso(updatedAt),
    status: deploymentStatus(d.deletedAt === null ? null : deletionPhaseOf(config, d.deletedAt, now), active),
    latest_revision_id: latest.id,
    active_revision_id: active,
    image_version: active === null ? null : imageVersionByMode[config.mode],
  };
}

export function listenerView(l: StoredListener): Listener {
  const { tenant_id: _tenant, ...listener } = structuredClone(l);
  return listener;
}
