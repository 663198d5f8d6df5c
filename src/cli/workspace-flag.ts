// `--workspace NAME` (or `KIND/NAME`): the service URL, tenant and API key of a Workspace or
// ClusterWorkspace, read from the cluster as the operator reads them, so a person uses exactly what the
// resources naming it use. The key is read from its Secret and never printed.
import type { AnyWorkspaceResource } from '../api/workspace.ts';
import { CLUSTER_WORKSPACES, WORKSPACES } from '../controllers/resources.ts';
import { settingsOf } from '../controllers/workspace/verdict.ts';
import { KubeClient } from '../runtime/kube.ts';
import { KubeError } from '../runtime/kube-errors.ts';
import { SECRETS, type Secret } from '../runtime/kube-objects.ts';
import { loadKubeconfig } from '../runtime/kubeconfig.ts';
import { type ApiKeySource, fixedKey } from '../service/key-source.ts';

export interface WorkspaceFlags {
  workspace?: string;
  kubeconfig?: string;
  namespace?: string;
  clusterResourceNamespace: string;
  serviceUrl?: string;
  tenantId?: string;
}

export interface ServiceSettings {
  baseUrl: string | undefined;
  tenantId: string | undefined;
  apiKey: ApiKeySource;
}

type Wanted = { kind: 'Workspace' | 'ClusterWorkspace' | undefined; name: string };

/** `NAME`, `Workspace/NAME`, `ClusterWorkspace/NAME` (kinds as kubectl takes them: any case, plural, short). */
export function parseWorkspaceFlag(value: string): Wanted {
  const [kind, name, extra] = value.split('/');
  if (name === undefined) return { kind: undefined, name: kind! };
  if (extra !== undefined || !name) throw new Error(`--workspace ${value}: expected NAME or KIND/NAME`);
  const k = kind!.toLowerCase();
  if (['workspace', 'workspaces', 'agws'].includes(k)) return { kind: 'Workspace', name };
  if (['clusterworkspace', 'clusterworkspaces', 'agcws'].includes(k))
    return { kind: 'ClusterWorkspace', name };
  throw new Error(`--workspace ${value}: the kind must be Workspace or ClusterWorkspace`);
}

/** What --workspace stands for, read from the cluster; the flags fill in what the workspace leaves out. */
export async function workspaceSettings(
  flags: WorkspaceFlags & { workspace: string },
): Promise<ServiceSettings> {
  const wanted = parseWorkspaceFlag(flags.workspace);
  const kubeconfig = loadKubeconfig({ file: flags.kubeconfig });
  const namespace = flags.namespace ?? kubeconfig.namespace ?? 'default';
  const kube = await KubeClient.fromKubeConfig(kubeconfig);
  try {
    const namespaced =
      wanted.kind === 'ClusterWorkspace'
        ? undefined
        : await kube.find<AnyWorkspaceResource>(WORKSPACES, wanted.name, namespace);
    const clustered =
      wanted.kind === 'Workspace'
        ? undefined
        : await kube.find<AnyWorkspaceResource>(CLUSTER_WORKSPACES, wanted.name);
    if (namespaced && clustered)
      throw new Error(
        `--workspace ${wanted.name}: both Workspace ${namespace}/${wanted.name} and ClusterWorkspace ${wanted.name} exist; say which (Workspace/${wanted.name} or ClusterWorkspace/${wanted.name})`,
      );
    const ws = namespaced ?? clustered;
    if (!ws) {
      const which =
        wanted.kind === 'Workspace'
          ? `Workspace ${namespace}/${wanted.name}`
          : wanted.kind === 'ClusterWorkspace'
            ? `ClusterWorkspace ${wanted.name}`
            : `no Workspace ${namespace}/${wanted.name} and no ClusterWorkspace ${wanted.name}`;
      throw new Error(wanted.kind ? `${which} not found` : which);
    }
    // The same reading of a workspace as the operator's: its own settings, else the flags.
    const { settings, secret: ref } = settingsOf(ws, {
      serviceUrl: flags.serviceUrl ?? '',
      tenantId: flags.tenantId,
      clusterResourceNamespace: flags.clusterResourceNamespace,
    });
    let secret: Secret | undefined;
    try {
      secret = await kube.find<Secret>(SECRETS, ref.name, ref.namespace);
    } catch (err) {
      if (err instanceof KubeError && err.status === 403)
        throw new Error(
          `you may not read Secret ${ref.namespace}/${ref.name}, which holds the workspace's API key`,
        );
      throw err;
    }
    const encoded = secret?.data?.[ref.key];
    if (encoded === undefined)
      throw new Error(
        `the workspace's API key is not there: no key ${ref.key} of Secret ${ref.namespace}/${ref.name}`,
      );
    return {
      baseUrl: settings.serviceUrl || undefined,
      tenantId: settings.tenantId,
      apiKey: fixedKey(Buffer.from(encoded, 'base64').toString('utf8').trim(), { kind: 'secret', ...ref }),
    };
  } finally {
    await kube.close();
  }
}
