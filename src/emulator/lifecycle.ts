// The revision lifecycle as a function of time: a revision's status is computed from when it started,
// its predetermined outcome and the step length, so there are no timers and every answer is reproducible.
import type { DeploymentStatus, RevisionStatus, SourceRevisionConfigInput } from '../service/wire.ts';

export type Outcome = 'DEPLOYED' | 'CREATE_FAILED' | 'BUILD_FAILED' | 'DEPLOY_FAILED' | 'SKIPPED';

const toBuild: RevisionStatus[] = ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING'];
const toDeploy: RevisionStatus[] = [...toBuild, 'AWAITING_DEPLOY', 'DEPLOYING'];
const timelines: Record<Outcome, RevisionStatus[]> = {
  DEPLOYED: [...toDeploy, 'DEPLOYED'],
  BUILD_FAILED: [...toBuild, 'BUILD_FAILED'],
  DEPLOY_FAILED: [...toDeploy, 'DEPLOY_FAILED'],
  CREATE_FAILED: ['CREATE_FAILED'],
  SKIPPED: [...toDeploy, 'SKIPPED'],
};

/** Markers in graph_config_path, image_uri or source_tarball_path that make a revision fail; first match wins. */
export const failureMarkers: ReadonlyArray<readonly [string, Outcome]> = [
  ['fail-create', 'CREATE_FAILED'],
  ['fail-build', 'BUILD_FAILED'],
  ['fail-deploy', 'DEPLOY_FAILED'],
];

/** The hosted profile's outcome markers: a revision may also end SKIPPED, which the hosted service counts as success. */
export const hostedOutcomeMarkers: ReadonlyArray<readonly [string, Outcome]> = [
  ...failureMarkers,
  ['skip-deploy', 'SKIPPED'],
];

/**
 * The hosted profile's detour markers: a transient status the revision passes through for one step after
 * BUILDING before it goes on (the hosted service reports UNKNOWN and INTERRUPTED with onward transitions).
 */
export const hostedDetourMarkers: ReadonlyArray<readonly [string, RevisionStatus]> = [
  ['flaky-status', 'UNKNOWN'],
  ['flaky-interrupt', 'INTERRUPTED'],
];

const markedFields = (config: SourceRevisionConfigInput) => [
  config.graph_config_path,
  config.image_uri,
  config.source_tarball_path,
];

/** The value of the first marker found in the marked fields, or null. */
function firstMarked<T>(
  config: SourceRevisionConfigInput,
  markers: ReadonlyArray<readonly [string, T]>,
): T | null {
  const fields = markedFields(config);
  for (const [marker, value] of markers) {
    if (fields.some((f) => f?.includes(marker))) return value;
  }
  return null;
}

export const outcomeOf = (config: SourceRevisionConfigInput, markers = failureMarkers): Outcome =>
  firstMarked(config, markers) ?? 'DEPLOYED';

export const detourOf = (
  config: SourceRevisionConfigInput,
  markers: ReadonlyArray<readonly [string, RevisionStatus]> = [],
): RevisionStatus | null => firstMarked(config, markers);

export interface RevisionTimeline {
  startedAt: number;
  outcome: Outcome;
  /** Set when a newer revision superseded this one (or its deployment was deleted) while in flight. */
  stopped: { status: RevisionStatus; at: number } | null;
  /** A transient status passed through for one step after BUILDING (hosted profile markers). */
  detour?: RevisionStatus | null;
}

/** Every status the revision passes through, in order, one step each (unless stopped). */
export function timelineOf(rev: RevisionTimeline): RevisionStatus[] {
  const timeline = timelines[rev.outcome];
  const building = timeline.indexOf('BUILDING');
  if (!rev.detour || building === -1) return timeline;
  return [...timeline.slice(0, building + 1), rev.detour, ...timeline.slice(building + 1)];
}

/** Which step of its timeline a revision is on at `now` (stepMs 0: the last step at once). */
function stepAt(timeline: readonly RevisionStatus[], rev: RevisionTimeline, stepMs: number, now: number) {
  const last = timeline.length - 1;
  return stepMs === 0 ? last : Math.min(last, Math.floor(Math.max(0, now - rev.startedAt) / stepMs));
}

/** Status at `now` and when it was entered: one step of the timeline every stepMs (0: the last step at once). */
export function revisionStateAt(
  rev: RevisionTimeline,
  stepMs: number,
  now: number,
): { status: RevisionStatus; since: number } {
  if (rev.stopped) return { status: rev.stopped.status, since: rev.stopped.at };
  const timeline = timelineOf(rev);
  const step = stepAt(timeline, rev, stepMs, now);
  return { status: timeline[step]!, since: rev.startedAt + step * stepMs };
}

/**
 * Whether the revision still has steps ahead at `now`: a transient status on its way (a hosted detour, even
 * INTERRUPTED) is in flight; a stopped revision is not.
 */
export function isInFlightAt(rev: RevisionTimeline, stepMs: number, now: number): boolean {
  if (rev.stopped) return false;
  const timeline = timelineOf(rev);
  return stepAt(timeline, rev, stepMs, now) < timeline.length - 1;
}

/** What an in-flight revision becomes when stopped: SKIPPED before building started, INTERRUPTED after. */
export function stoppedStatus(status: RevisionStatus): RevisionStatus {
  return status === 'CREATING' || status === 'QUEUED' || status === 'AWAITING_BUILD'
    ? 'SKIPPED'
    : 'INTERRUPTED';
}

/** The deletion phase once deleted, READY once any revision is deployed, AWAITING_DATABASE before. */
export function deploymentStatus<S>(
  deletionPhase: S | null,
  activeRevisionId: string | null,
): S | DeploymentStatus {
  if (deletionPhase !== null) return deletionPhase;
  return activeRevisionId === null ? 'AWAITING_DATABASE' : 'READY';
}

/** A deleted deployment shows each of `phases` for one step, then it is gone (null); stepMs 0 is gone at once. */
export function deletionPhaseAt<S>(
  phases: readonly S[],
  deletedAt: number,
  stepMs: number,
  now: number,
): S | null {
  const step = stepMs === 0 ? phases.length : Math.floor(Math.max(0, now - deletedAt) / stepMs);
  return phases[step] ?? null;
}
