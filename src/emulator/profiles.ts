// What each profile changes, as data and small pure rules. `interface` is the interface as README.md reads
// it; `hosted` adds the hosted service's behaviours that the interface does not list (README.md, Profiles).
import type { z } from 'zod';
import { interfaceDeploymentTypes, type RevisionStatus } from '../service/wire.ts';
import type { EmulatorConfig, Mode, Profile } from './config.ts';
import {
  deletionPhaseAt,
  failureMarkers,
  hostedDetourMarkers,
  hostedOutcomeMarkers,
  type Outcome,
  stoppedStatus,
} from './lifecycle.ts';
import {
  type EmulatedCreateRequest,
  type EmulatedDeploymentStatus,
  type EmulatedPatchRequest,
  type EmulatedSourceConfig,
  finalDeleteStatus,
  HostedCreateDeploymentRequest,
  HostedPatchDeploymentRequest,
  hostedDeploymentTypes,
  InterfaceCreateDeploymentRequest,
  InterfacePatchDeploymentRequest,
  selfHostedApiPrefix,
} from './profile-wire.ts';

type SourceConfigField = keyof EmulatedSourceConfig;

export interface ProfileRules {
  createRequest: z.ZodType<EmulatedCreateRequest>;
  patchRequest: z.ZodType<EmulatedPatchRequest>;
  /** deployment_type values the list filter accepts (the same set as the request schemas). */
  deploymentTypes: readonly string[];
  /** What a deleted deployment shows, one deletion step each, before it is gone. */
  deletionPhases: readonly EmulatedDeploymentStatus[];
  /** Length of one deletion step, given the lifecycle step. */
  deletionStepMs(stepMs: number): number;
  /** source_config fields stored but left out of every deployment answer. */
  hiddenSourceConfigFields: readonly SourceConfigField[];
  /** source_config fields that a PATCH null does not clear once they hold a value. */
  keptSourceConfigFields: readonly SourceConfigField[];
  outcomeMarkers: ReadonlyArray<readonly [string, Outcome]>;
  detourMarkers: ReadonlyArray<readonly [string, RevisionStatus]>;
  /** What an in-flight revision becomes when a newer one supersedes it. */
  supersededStatus(status: RevisionStatus): RevisionStatus;
  /** Whether GET of one deployment and of one revision are served. */
  readsById: boolean;
  /** The path prefix when none is given ('' for none). */
  defaultPathPrefix: Record<Mode, string>;
}

/** A hosted deletion step when stepMs is 0, so that its two phases can still be seen. */
export const hostedDeletionStepMs = 200;

export const profileRules: Record<Profile, ProfileRules> = {
  interface: {
    createRequest: InterfaceCreateDeploymentRequest,
    patchRequest: InterfacePatchDeploymentRequest,
    deploymentTypes: interfaceDeploymentTypes,
    deletionPhases: ['AWAITING_DELETE'],
    deletionStepMs: (stepMs) => stepMs,
    hiddenSourceConfigFields: [],
    keptSourceConfigFields: [],
    outcomeMarkers: failureMarkers,
    detourMarkers: [],
    supersededStatus: stoppedStatus,
    readsById: false,
    defaultPathPrefix: { cloud: '', 'self-hosted': '' },
  },
  hosted: {
    createRequest: HostedCreateDeploymentRequest,
    patchRequest: HostedPatchDeploymentRequest,
    deploymentTypes: hostedDeploymentTypes,
    deletionPhases: ['AWAITING_DELETE', finalDeleteStatus],
    deletionStepMs: (stepMs) => (stepMs === 0 ? hostedDeletionStepMs : stepMs),
    // The Terraform provider keeps listener_config as its own truth: the service never reports it back.
    hiddenSourceConfigFields: ['listener_config'],
    // The provider documents that the service has no way to clear these once set.
    keptSourceConfigFields: ['custom_url', 'build_on_push'],
    outcomeMarkers: hostedOutcomeMarkers,
    detourMarkers: hostedDetourMarkers,
    // The provider: SKIPPED means a newer revision superseded this one before the service promoted it.
    supersededStatus: () => 'SKIPPED',
    readsById: true,
    defaultPathPrefix: { cloud: '', 'self-hosted': selfHostedApiPrefix },
  },
};

export const rulesOf = (config: EmulatorConfig): ProfileRules => profileRules[config.profile];

/** Where the deletion of a deployment deleted at `deletedAt` stands at `now`; null once it is gone. */
export function deletionPhaseOf(
  config: EmulatorConfig,
  deletedAt: number,
  now: number,
): EmulatedDeploymentStatus | null {
  const rules = rulesOf(config);
  return deletionPhaseAt(rules.deletionPhases, deletedAt, rules.deletionStepMs(config.stepMs), now);
}
