// How an emulator instance behaves; fixed for its lifetime.
import type { Source } from '../service/wire.ts';

export type Mode = 'cloud' | 'self-hosted';
export type Busy = 'supersede' | 'reject';
/** interface: only what the interface states (plus the rules in README.md); hosted: also the hosted service's known quirks. */
export type Profile = 'interface' | 'hosted';
export const profiles: readonly Profile[] = ['interface', 'hosted'];

export interface EmulatorConfig {
  mode: Mode;
  profile: Profile;
  /** Length of one revision lifecycle step; 0 makes every revision terminal at once. */
  stepMs: number;
  /** What a new revision does to one still in flight. */
  busy: Busy;
}

/** Interface §1: which sources each kind of installation accepts. */
export const sourcesByMode: Record<Mode, readonly Source[]> = {
  cloud: ['codehost', 'internal_docker', 'internal_source', 'internal_template'],
  'self-hosted': ['external_docker'],
};

/** The image_version a deployment reports once a revision is deployed (null before). */
export const imageVersionByMode: Record<Mode, string> = {
  cloud: '1.0.0',
  'self-hosted': '1.0.0-self-hosted',
};
