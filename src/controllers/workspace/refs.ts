// Which workspace a resource acts in, as one string: `Workspace/<namespace>/<name>`,
// `ClusterWorkspace/<name>`, or `default` (the operator's own flags). Pure functions.
import type { AnyWorkspaceResource, WorkspaceRef } from '../../api/workspace.ts';

export type WorkspaceKey = string;

/** The operator's own --service-url, --tenant-id and API key. */
export const ownWorkspace: WorkspaceKey = 'default';

/** A resource of any kind: its spec may name a workspace. */
export interface Referrer {
  kind?: string;
  metadata: { name?: string | undefined; namespace?: string | undefined };
  spec?: unknown;
}

/** The workspace of a resource; `fallback` for one that names none. */
export function workspaceKeyOf(cr: Referrer, fallback: WorkspaceKey): WorkspaceKey {
  const ref = (cr.spec as { workspaceRef?: Pick<WorkspaceRef, 'kind' | 'name'> } | undefined)?.workspaceRef;
  if (!ref) return fallback;
  return ref.kind === 'ClusterWorkspace'
    ? `ClusterWorkspace/${ref.name}`
    : `Workspace/${cr.metadata.namespace ?? ''}/${ref.name}`;
}

/** The key of a Workspace or ClusterWorkspace object. */
export function keyOfWorkspace(ws: Pick<AnyWorkspaceResource, 'kind' | 'metadata'>): WorkspaceKey {
  return ws.kind === 'ClusterWorkspace'
    ? `ClusterWorkspace/${ws.metadata.name}`
    : `Workspace/${ws.metadata.namespace}/${ws.metadata.name}`;
}

/** `--default-workspace NAME` names a ClusterWorkspace; without it, the operator's own settings. */
export const fallbackWorkspace = (defaultWorkspace: string | undefined): WorkspaceKey =>
  defaultWorkspace ? `ClusterWorkspace/${defaultWorkspace}` : ownWorkspace;

export type ParsedKey =
  | { kind: 'Workspace'; namespace: string; name: string }
  | { kind: 'ClusterWorkspace'; name: string };

export function parseWorkspaceKey(key: WorkspaceKey): ParsedKey | undefined {
  const [kind, a, b] = key.split('/');
  if (kind === 'Workspace' && a && b) return { kind, namespace: a, name: b };
  if (kind === 'ClusterWorkspace' && a && b === undefined) return { kind, name: a };
  return undefined;
}

/** How messages name a workspace: `Workspace team-a/dev`, `ClusterWorkspace prod`. */
export function describeWorkspace(key: WorkspaceKey): string {
  const parsed = parseWorkspaceKey(key);
  if (!parsed) return "the operator's own workspace (its --service-url, --tenant-id and API key)";
  return parsed.kind === 'Workspace'
    ? `Workspace ${parsed.namespace}/${parsed.name}`
    : `ClusterWorkspace ${parsed.name}`;
}
