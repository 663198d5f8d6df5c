// The flags every command that talks to the service shares, with the operator's names (or a workspace
// read from the cluster), and the translation of service failures into one line a person can act on.
import { type Command, Option } from 'commander';
import { ServiceClient } from '../service/client.ts';
import { ServiceError } from '../service/errors.ts';
import { type ApiKeySource, describeOrigin, FileKeySource, fixedKey } from '../service/key-source.ts';
import type { OutputFormat } from './output.ts';
import { type WorkspaceFlags, workspaceSettings } from './workspace-flag.ts';

export interface ServiceFlags extends Partial<WorkspaceFlags> {
  serviceUrl?: string;
  apiKeyFile?: string;
  tenantId?: string;
  output: OutputFormat;
}

export function addServiceOptions(command: Command): Command {
  // A command that reads the cluster for itself (diff, logs) has its own --kubeconfig (and --namespace);
  // --workspace uses them too.
  const has = (long: string) => command.options.some((o) => o.long === long);
  if (!has('--kubeconfig'))
    command.option('--kubeconfig <file>', 'kubeconfig to read --workspace from (default, as kubectl)');
  if (!has('--namespace'))
    command.option(
      '-n, --namespace <name>',
      "namespace of a Workspace (default: the kubeconfig context's, else default)",
    );
  return command
    .addOption(
      new Option(
        '--workspace <name>',
        'use the service URL, tenant and API key of this Workspace (in --namespace) or ClusterWorkspace, read from the cluster; KIND/NAME to say which',
      ).env('AGENT_DEPLOY_WORKSPACE'),
    )
    .addOption(
      new Option(
        '--cluster-resource-namespace <name>',
        "namespace of a ClusterWorkspace's Secret when it names none (the operator's own namespace)",
      )
        .env('AGENT_DEPLOY_CLUSTER_RESOURCE_NAMESPACE')
        .default('agent-deploy-system'),
    )
    .addOption(
      new Option('--service-url <url>', 'base URL of the service, path prefix included').env(
        'AGENT_DEPLOY_SERVICE_URL',
      ),
    )
    .option('--api-key-file <path>', 'file holding the API key (or set AGENT_DEPLOY_API_KEY)')
    .addOption(
      new Option('--tenant-id <id>', 'tenant to act for (sent as X-Tenant-Id)').env('AGENT_DEPLOY_TENANT_ID'),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'json', 'yaml'])
        .default('table'),
    );
}

export const apiKeyVariable = 'AGENT_DEPLOY_API_KEY';

/**
 * Where the API key comes from: --api-key-file, else AGENT_DEPLOY_API_KEY (never a flag: it would show
 * in `ps`). The file is read now (a missing one fails at start); the operator's client reads it again
 * when it changes. The variable is read once: a process cannot see its environment change.
 */
export function apiKeySource(
  flags: Pick<ServiceFlags, 'apiKeyFile'>,
  env: NodeJS.ProcessEnv = process.env,
): ApiKeySource {
  if (flags.apiKeyFile) return new FileKeySource(flags.apiKeyFile);
  const key = env[apiKeyVariable];
  if (!key) throw new Error(`no API key: pass --api-key-file or set ${apiKeyVariable}`);
  return fixedKey(key, { kind: 'env', name: apiKeyVariable });
}

/** Whether a key was given at all (the operator may run with workspaces only). */
export const hasApiKey = (flags: Pick<ServiceFlags, 'apiKeyFile'>, env: NodeJS.ProcessEnv = process.env) =>
  Boolean(flags.apiKeyFile || env[apiKeyVariable]);

/** Runs `fn` with a client for the service, closes it, and words any service failure as one line. */
export async function withService<T>(
  flags: ServiceFlags,
  fn: (client: ServiceClient) => Promise<T>,
): Promise<T> {
  const settings = flags.workspace
    ? await workspaceSettings({
        clusterResourceNamespace: 'agent-deploy-system',
        ...flags,
        workspace: flags.workspace,
      })
    : { baseUrl: flags.serviceUrl, tenantId: flags.tenantId, apiKey: apiKeySource(flags) };
  const { baseUrl, tenantId } = settings;
  if (!baseUrl)
    throw new Error(
      `no service URL: ${flags.workspace ? 'the workspace names none; ' : ''}pass --service-url or set AGENT_DEPLOY_SERVICE_URL`,
    );
  const client = new ServiceClient({
    baseUrl,
    // A command runs once: the key is read once; where it came from is kept for the messages.
    apiKey: fixedKey(settings.apiKey.key(), settings.apiKey.origin),
    ...(tenantId ? { tenantId } : {}),
    // A person is waiting: give up sooner than the operator does.
    retry: { maxAttempts: 3, maxElapsedMs: 15_000 },
  });
  try {
    return await fn(client);
  } catch (err) {
    if (err instanceof ServiceError) throw new Error(describeFailure(err, baseUrl));
    throw err;
  } finally {
    await client.close();
  }
}

const where = (err: ServiceError) =>
  `${err.endpoint}: ${err.status === undefined ? '' : `${err.status} `}${err.detail}`;

function describeFailure(err: ServiceError, baseUrl: string): string {
  if (err.isNetworkError) return `cannot reach the service at ${baseUrl} (${where(err)})`;
  if (err.isUnauthorized) {
    const from = err.keySource ? ` from ${describeOrigin(err.keySource)}` : '';
    return `the service refused the API key${from} (${where(err)})`;
  }
  if (err.isForbidden) return `the service refused access (${where(err)})`;
  return `the service answered an error (${where(err)})`;
}

/** For `.catch`: a 404 becomes "<what> not found (…)"; any other failure passes through. */
export function notFoundAs(what: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof ServiceError && err.isNotFound) throw new Error(`${what} not found (${where(err)})`);
    throw err;
  };
}
