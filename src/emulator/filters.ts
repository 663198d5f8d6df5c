// The list filters of interface §4.9 and §4.10 as predicates over wire resources.
// An empty comma-separated list (e.g. `deployment_ids=`) filters nothing, like an absent one.
import type { Revision } from '../service/wire.ts';
import type { EmulatedDeployment } from './profile-wire.ts';
import type { DeploymentFilters, RevisionFilters } from './query.ts';

/** A deployment is remotely reconciled when it runs on a listener (compute the tenant registered). */
export const isRemoteReconciled = (d: { source_config: { listener_id?: string | null } }): boolean =>
  d.source_config.listener_id != null;

const anyOf = (wanted: string[] | undefined, has: (v: string) => boolean): boolean =>
  wanted === undefined || wanted.length === 0 || wanted.some(has);

/** `tags` are the tag value ids the deployment carries (from the seed). */
export function matchesDeployment(
  d: EmulatedDeployment,
  f: DeploymentFilters,
  tags: readonly string[],
): boolean {
  return (
    (f.name_contains === undefined || d.name.toLowerCase().includes(f.name_contains.toLowerCase())) &&
    (f.status === undefined || d.status === f.status) &&
    anyOf(f.deployment_ids, (id) => id === d.id) &&
    (f.deployment_type === undefined || d.source_config.deployment_type === f.deployment_type) &&
    (f.image_version === undefined || d.image_version === f.image_version) &&
    (f.remote_reconciled === undefined || isRemoteReconciled(d) === f.remote_reconciled) &&
    anyOf(f.tag_value_ids, (id) => tags.includes(id))
  );
}

/** A revision is remotely reconciled when its deployment is. */
export function matchesRevision(r: Revision, f: RevisionFilters, deploymentReconciled: boolean): boolean {
  return (
    anyOf(f.status, (s) => s === r.status) &&
    (f.remote_reconciled === undefined || deploymentReconciled === f.remote_reconciled)
  );
}
