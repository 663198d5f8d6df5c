// The observed part of a Deployment resource's status: the service deployment and its revisions.
import { type DeploymentStatus, statusRevisionsLimit } from '../../api/deployment.ts';
import type { Deployment, Revision } from '../../service/wire.ts';

type RevisionSummary = NonNullable<DeploymentStatus['latestRevision']>;

const summary = (r: Revision): RevisionSummary => ({
  id: r.id,
  status: r.status,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.source_revision_config.repo_commit_sha
    ? { repoCommitSha: r.source_revision_config.repo_commit_sha }
    : {}),
});

/**
 * The revisions status shows, newest first. `listed` is a fresh revision list when one was read;
 * otherwise the deployment itself tells the latest revision's id, and that it is DEPLOYED when it
 * is also the active one (the cheap path: no revision call per resource).
 */
export function revisionSummaries(
  d: Deployment,
  listed: Revision[] | undefined,
  previous: RevisionSummary[] | undefined,
): RevisionSummary[] {
  if (listed) {
    return [...listed]
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id === d.latest_revision_id ? -1 : 1))
      .slice(0, statusRevisionsLimit)
      .map(summary);
  }
  const prev = previous ?? [];
  if (!d.latest_revision_id) return prev;
  const known = prev.find((r) => r.id === d.latest_revision_id);
  const latest: RevisionSummary = {
    ...(known ?? { id: d.latest_revision_id, status: 'CREATING' }),
    ...(d.active_revision_id === d.latest_revision_id ? { status: 'DEPLOYED' as const } : {}),
  };
  const sha = d.source_revision_config.repo_commit_sha;
  if (sha && !latest.repoCommitSha) latest.repoCommitSha = sha;
  return [latest, ...prev.filter((r) => r.id !== latest.id)].slice(0, statusRevisionsLimit);
}

export function observedStatus(d: Deployment, revisions: RevisionSummary[]): Partial<DeploymentStatus> {
  const latest = revisions.find((r) => r.id === d.latest_revision_id);
  return {
    deploymentId: d.id,
    tenantId: d.tenant_id,
    serviceStatus: d.status,
    ...(d.image_version ? { imageVersion: d.image_version } : {}),
    ...(d.active_revision_id ? { activeRevisionId: d.active_revision_id } : {}),
    ...(latest ? { latestRevision: latest } : {}),
    ...(revisions.length > 0 ? { revisions } : {}),
  };
}
