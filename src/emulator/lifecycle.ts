// The revision lifecycle as a function of time: a revision's status is computed from when it started,
// its predetermined outcome and the step length, so there are no timers and every answer is reproducible.
import type { DeploymentStatus, RevisionStatus, SourceRevisionConfigInput } from '../service/wire.ts';
import { terminalRevisionStatuses } from '../service/wire.ts';

export type Outcome = 'DEPLOYED' | 'CREATE_FAILED' | 'BUILD_FAILED' | 'DEPLOY_FAILED';

const toBuild: RevisionStatus[] = ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING'];
const toDeploy: RevisionStatus[] = [...toBuild, 'AWAITING_DEPLOY', 'DEPLOYING'];
const timelines: Record<Outcome, RevisionStatus[]> = {
  DEPLOYED: [...toDeploy, 'DEPLOYED'],
  BUILD_FAILED: [...toBuild, 'BUILD_FAILED'],
  DEPLOY_FAILED: [...toDeploy, 'DEPLOY_FAILED'],
  CREATE_FAILED: ['CREATE_FAILED'],
};

/** Markers in graph_config_path, image_uri or source_tarball_path that make a revision fail; first match wins. */
export const failureMarkers: ReadonlyArray<readonly [string, Outcome]> = [
  ['fail-create', 'CREATE_FAILED'],
  ['fail-build', 'BUILD_FAILED'],
  ['fail-deploy', 'DEPLOY_FAILED'],
];

export function outcomeOf(config: SourceRevisionConfigInput): Outcome {
  const fields = [config.graph_config_path, config.image_uri, config.source_tarball_path];
  for (const [marker, outcome] of failureMarkers) {
    if (fields.some((f) => f?.includes(marker))) return outcome;
  }
  return 'DEPLOYED';
}

export interface RevisionTimeline {
  startedAt: number;
  outcome: Outcome;
  /** Set when a newer revision superseded this one (or its deployment was deleted) while in flight. */
  stopped: { status: RevisionStatus; at: number } | null;
}

/** Status at `now` and when it was entered: one step of the timeline every stepMs (0: the last step at once). */
export function revisionStateAt(
  rev: RevisionTimeline,
  stepMs: number,
  now: number,
): { status: RevisionStatus; since: number } {
  if (rev.stopped) return { status: rev.stopped.status, since: rev.stopped.at };
  const timeline = timelines[rev.outcome];
  const last = timeline.length - 1;
  const step = stepMs === 0 ? last : Math.min(last, Math.floor(Math.max(0, now - rev.startedAt) / stepMs));
  return { status: timeline[step]!, since: rev.startedAt + step * stepMs };
}

export const isInFlight = (status: RevisionStatus): boolean => !terminalRevisionStatuses.has(status);

/** What an in-flight revision becomes when stopped: SKIPPED before building started, INTERRUPTED after. */
export function stoppedStatus(status: RevisionStatus): RevisionStatus {
  return status === 'CREATING' || status === 'QUEUED' || status === 'AWAITING_BUILD'
    ? 'SKIPPED'
    : 'INTERRUPTED';
}

/** AWAITING_DELETE once deleted, READY once any revision is deployed, AWAITING_DATABASE before. */
export function deploymentStatus(deleted: boolean, activeRevisionId: string | null): DeploymentStatus {
  if (deleted) return 'AWAITING_DELETE';
  return activeRevisionId === null ? 'AWAITING_DATABASE' : 'READY';
}
