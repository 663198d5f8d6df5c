// kubectl helpers for the Listener, AgentConnection and OAuthToken tests (any kind of our API).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { kubectl } from '../support/kube.ts';

export const apiVersion = 'deploy.agents.dev/v1alpha1';

export type Kind = 'listeners' | 'agentconnections' | 'oauthtokens' | 'deployments';

const ns = (namespace?: string) => (namespace ? ['-n', namespace] : []);

export async function applyResource(manifest: object, namespace?: string): Promise<void> {
  await kubectl(['apply', ...ns(namespace), '-f', '-'], { input: JSON.stringify(manifest) });
}

export async function getResource(kind: Kind, name: string, namespace?: string) {
  const { stdout } = await kubectl([
    'get',
    ...ns(namespace),
    `${kind}.deploy.agents.dev`,
    name,
    '-o',
    'json',
  ]);
  return JSON.parse(stdout);
}

/** `kubectl wait --for=…`, e.g. `condition=Ready` or `jsonpath={…}=value`. */
export async function waitForResource(
  kind: Kind,
  name: string,
  condition: string,
  namespace?: string,
  timeoutS = 60,
): Promise<void> {
  await kubectl([
    'wait',
    ...ns(namespace),
    `${kind}.deploy.agents.dev/${name}`,
    `--for=${condition}`,
    `--timeout=${timeoutS}s`,
  ]);
}

interface TestCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** The `type → condition` map of a resource's status. */
export function conditionsOf(cr: {
  status?: { conditions?: TestCondition[] };
}): Record<string, TestCondition> {
  return Object.fromEntries((cr.status?.conditions ?? []).map((c) => [c.type, c]));
}

export const stalledWith = (reason: string) =>
  `jsonpath={.status.conditions[?(@.type=="Stalled")].reason}=${reason}`;

export interface ServiceState {
  deployments: { id: string; name: string; source_config: { listener_id?: string | null } }[];
  listeners: { id: string; compute_id: string; compute_config: { k8s_namespaces: string[] | null } }[];
  connections: { id: string; agent_id: string; oauth_token_id: string; created_by: string }[];
  tokens: { id: string; provider_account_label: string; is_default: boolean; updated_at: string }[];
  calls: Record<string, number>;
}

/** The emulator's admin state dump. */
export async function serviceState(emu: { adminUrl: string }): Promise<ServiceState> {
  return (await fetch(`${emu.adminUrl}/_emulator/state`)).json() as Promise<ServiceState>;
}

export const callCount = async (emu: { adminUrl: string }, endpoint: string) =>
  (await serviceState(emu)).calls[endpoint] ?? 0;

export const totalCalls = async (emu: { adminUrl: string }) =>
  Object.values((await serviceState(emu)).calls).reduce((a, b) => a + b, 0);

/** One manifest of examples/, as an object. */
export function example(file: string): { metadata: { name: string } } & Record<string, unknown> {
  return parse(readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8'));
}
