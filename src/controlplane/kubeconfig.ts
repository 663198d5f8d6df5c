import { stringify } from 'yaml';

export interface KubeconfigInput {
  server: string;
  caData: string;
  user: string;
  token: string;
  namespace?: string;
}

/** A one-context kubeconfig with a bearer token, as kubectl and client libraries read it. */
export function kubeconfigYaml({ server, caData, user, token, namespace }: KubeconfigInput): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'agent-deploy-local',
        cluster: { server, 'certificate-authority-data': Buffer.from(caData).toString('base64') },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [
      { name: user, context: { cluster: 'agent-deploy-local', user, ...(namespace ? { namespace } : {}) } },
    ],
    'current-context': user,
  });
}
