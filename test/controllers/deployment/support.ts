// Shared set-up for Deployment controller tests: CRDs installed, an emulator, a namespace, kubectl.

import { inject } from 'vitest';
import { crdDocuments } from '../../../src/api/crd.ts';
import type { Profile } from '../../../src/emulator/config.ts';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { createTestNamespace, installCrds, kubectl } from '../../support/kube.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The emulator profile of this project's integration tests (vitest.config.ts). */
    emulatorProfile: Profile;
  }
}

/** The emulator profile the running project asks for: `interface`, or `hosted` in integration-hosted. */
export const emulatorProfile = (): Profile => inject('emulatorProfile') ?? 'interface';

export async function setUp(prefix: string, emulator: EmulatorOptions = {}) {
  await installCrds(crdDocuments());
  const namespace = await createTestNamespace(prefix);
  const emu = await startEmulator({ port: 0, stepMs: 0, profile: emulatorProfile(), ...emulator });
  return { namespace, emu };
}

export interface EmulatorState {
  deployments: {
    id: string;
    name: string;
    revisions: { id: string; status: string }[];
    [k: string]: unknown;
  }[];
  calls: Record<string, number>;
}

export async function emulatorState(emu: RunningEmulator): Promise<EmulatorState> {
  return (await fetch(`${emu.adminUrl}/_emulator/state`)).json() as Promise<EmulatorState>;
}

/**
 * What a person does on the service directly (its UI or CLI), with the seed's key: the test's own call,
 * which must succeed. Returns the answer's body.
 */
export async function onService<T>(
  emu: RunningEmulator,
  method: string,
  path: string,
  body: object,
): Promise<T> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': 'dev-key' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function apply(namespace: string, manifest: object): Promise<void> {
  await kubectl(['apply', '-n', namespace, '-f', '-'], { input: JSON.stringify(manifest) });
}

export function agentDeployment(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'deploy.agents.dev/v1alpha1', kind: 'Deployment', metadata: { name }, spec };
}

/** `kubectl get` of one of our Deployments as JSON. */
export async function getCr(namespace: string, name: string) {
  const { stdout } = await kubectl([
    'get',
    '-n',
    namespace,
    'deployments.deploy.agents.dev',
    name,
    '-o',
    'json',
  ]);
  return JSON.parse(stdout);
}

export async function waitFor(
  namespace: string,
  name: string,
  condition: string,
  timeoutS = 60,
): Promise<void> {
  await kubectl([
    'wait',
    '-n',
    namespace,
    `deployments.deploy.agents.dev/${name}`,
    `--for=${condition}`,
    `--timeout=${timeoutS}s`,
  ]);
}

/** The operator's `warn` log lines about one resource, parsed: what a person tailing the logs sees. */
export function warnings(logs: string[], key: string): { reason?: string; message?: string; msg: string }[] {
  return logs.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { level?: number; deployment?: string; msg: string };
      return entry.level === 40 && entry.deployment === key ? [entry] : [];
    } catch {
      return [];
    }
  });
}

/** The Events about one resource, optionally narrowed by more field selectors (`type=Warning`). */
export async function eventsOf(
  namespace: string,
  name: string,
  selector = '',
): Promise<{ type: string; reason: string; message: string }[]> {
  const { stdout } = await kubectl([
    'get',
    'events',
    '-n',
    namespace,
    '--field-selector',
    [`involvedObject.name=${name}`, selector].filter(Boolean).join(','),
    '-o',
    'json',
  ]);
  return (JSON.parse(stdout) as { items: { type: string; reason: string; message: string }[] }).items;
}
