// What a workspace's settings and its key check say, as a verdict and as the four conditions. Pure.
import type { AnyWorkspaceResource } from '../../api/workspace.ts';
import type { ProbeAnswer } from '../../service/auth-gate.ts';
import { keyAccepted } from '../../service/auth-gate.ts';
import { type ConditionSet, condition, outcomeConditions, type Problem } from '../managed/conditions.ts';
import type { KeyRef, ServiceSettings } from './connection.ts';
import type { Verdict } from './registry.ts';

export interface Defaults {
  serviceUrl: string;
  tenantId?: string | undefined;
  /** Where a ClusterWorkspace's Secret is when it names no namespace. */
  clusterResourceNamespace: string;
}

/** What a workspace asks for: the service and tenant (its own, else the operator's), and its key's Secret. */
export function settingsOf(
  ws: AnyWorkspaceResource,
  defaults: Defaults,
): { settings: ServiceSettings; secret: KeyRef } {
  const ref = ws.spec.apiKeySecretRef;
  const namespace =
    ws.kind === 'Workspace'
      ? ws.metadata.namespace!
      : (ws.spec.apiKeySecretRef.namespace ?? defaults.clusterResourceNamespace);
  const tenantId = ws.spec.tenantId ?? defaults.tenantId;
  return {
    settings: { serviceUrl: ws.spec.serviceUrl ?? defaults.serviceUrl, ...(tenantId ? { tenantId } : {}) },
    secret: { namespace, name: ref.name, key: ref.key },
  };
}

const where = (ref: KeyRef) => `key ${ref.key} of Secret ${ref.namespace}/${ref.name}`;

export function secretProblem(ref: KeyRef, missing: 'NotFound' | 'Forbidden' | 'NoKey'): Problem {
  const message =
    missing === 'NoKey'
      ? `Secret ${ref.namespace}/${ref.name} has no key ${ref.key}`
      : missing === 'NotFound'
        ? `Secret ${ref.namespace}/${ref.name} not found`
        : `the operator may not read Secret ${ref.namespace}/${ref.name} (RBAC)`;
  return {
    reason: missing === 'Forbidden' ? 'SecretForbidden' : 'SecretNotFound',
    message,
    stalled: false,
  };
}

/** What one key check says: accepted, rejected (401), refused for the tenant (403), or no answer. */
export function probeVerdict(answer: ProbeAnswer, settings: ServiceSettings, ref: KeyRef): Verdict {
  if (answer.status === 401)
    return {
      problem: {
        reason: 'Unauthorized',
        message: `the service rejected the API key in ${where(ref)} (${answer.detail}); the operator checks again when the Secret changes`,
        stalled: false,
      },
    };
  if (answer.status === 403)
    return {
      problem: {
        reason: 'Forbidden',
        message: `the service refused the API key in ${where(ref)} for ${settings.tenantId ? `tenant ${settings.tenantId}` : 'its tenant'} (${answer.detail})`,
        stalled: false,
      },
    };
  if (keyAccepted(answer.status)) return { ready: true };
  return {
    problem: {
      reason: 'Unreachable',
      message: `no usable answer from ${settings.serviceUrl} (${answer.status ?? 'no response'}: ${answer.detail})`,
      stalled: false,
    },
  };
}

export function readyMessage(settings: ServiceSettings, ref: KeyRef): string {
  const tenant = settings.tenantId ? ` for tenant ${settings.tenantId}` : '';
  return `the service at ${settings.serviceUrl} accepts the API key in ${where(ref)}${tenant}`;
}

/** The four conditions; while deletion is held, Reconciling says by whom. */
export function workspaceConditions(verdict: Verdict, ready: string, heldBy: number): ConditionSet {
  const set = outcomeConditions('problem' in verdict ? verdict.problem : undefined, ready);
  if (heldBy > 0)
    set.Reconciling = condition(
      'True',
      'InUse',
      `deletion waits until no resource names this workspace: ${heldBy} still do (status.usedBy)`,
    );
  return set;
}

/** status.usedBy keeps at most this many names. */
export const usedByLimit = 50;
