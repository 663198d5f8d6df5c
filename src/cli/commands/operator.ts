// agent-deploy operator: runs the controllers against a cluster and the service.
//
// With --leader-elect, several replicas campaign for one Lease and only the leader runs the
// controllers (informers, workers, the batched observer); the others stand by, healthy and ready.
// A leader that loses the lease exits non-zero at once (its work may already be someone else's; the
// Deployment restarts it as a standby). SIGTERM stops the controllers, letting in-flight reconciles
// finish, then releases the lease so a standby takes over without waiting for it to expire.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { controllerFactories } from '../../controllers/all.ts';
import { CLUSTER_WORKSPACES, WORKSPACES } from '../../controllers/resources.ts';
import { SecretKeySource, WorkspaceConnection } from '../../controllers/workspace/connection.ts';
import {
  describeWorkspace,
  fallbackWorkspace,
  ownWorkspace,
  parseWorkspaceKey,
  type WorkspaceKey,
} from '../../controllers/workspace/refs.ts';
import { Workspaces } from '../../controllers/workspace/registry.ts';
import { onShutdownSignal } from '../../runtime/controller.ts';
import {
  controllersReady,
  informersFresh,
  readyWhenStandingBy,
  startHealthServer,
} from '../../runtime/health.ts';
import { KubeClient } from '../../runtime/kube.ts';
import { SECRETS } from '../../runtime/kube-objects.ts';
import { loadKubeconfig } from '../../runtime/kubeconfig.ts';
import { LeaderElector } from '../../runtime/leader.ts';
import { leaderMetric } from '../../runtime/metrics.ts';
import { SharedInformers } from '../../runtime/shared-informers.ts';
import { ServiceClient } from '../../service/client.ts';
import type { ApiKeySource } from '../../service/key-source.ts';
import { serviceCallMetrics } from '../../service/metrics.ts';
import { parseDuration } from '../duration.ts';
import { apiKeySource, hasApiKey } from '../service-options.ts';

interface Flags {
  kubeconfig?: string;
  serviceUrl: string;
  apiKeyFile?: string;
  tenantId?: string;
  namespace: string[];
  resync: string;
  concurrency: string;
  logLevel: string;
  healthPort: string;
  healthHost: string;
  leaderElect: boolean;
  leaderElectionNamespace?: string;
  leaderElectionId: string;
  defaultWorkspace?: string;
  clusterResourceNamespace?: string;
}

const serviceAccountNamespaceFile = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The pod's own namespace when running in a cluster, else `default`. */
export function defaultLeaseNamespace(file = serviceAccountNamespaceFile): string {
  try {
    return readFileSync(file, 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

/** Lease holder identity: the pod name (unique among replicas), else host name plus a random suffix. */
export function leaderIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return env.POD_NAME || `${hostname()}_${randomBytes(4).toString('hex')}`;
}

export function command(): Command {
  return new Command('operator')
    .description(
      'Reconcile Deployment, Listener, AgentConnection and OAuthToken resources (and the Workspaces they act in) against the service.',
    )
    .option(
      '--kubeconfig <file>',
      "kubeconfig file (default, as kubectl: $KUBECONFIG's files merged, else ~/.kube/config, else the pod's service account)",
    )
    .addOption(
      new Option('--service-url <url>', 'base URL of the service, path prefix included')
        .env('AGENT_DEPLOY_SERVICE_URL')
        .makeOptionMandatory(),
    )
    .option('--api-key-file <path>', 'file holding the API key (or set AGENT_DEPLOY_API_KEY)')
    .addOption(
      new Option('--tenant-id <id>', 'tenant to act for (sent as X-Tenant-Id)').env('AGENT_DEPLOY_TENANT_ID'),
    )
    .addOption(
      new Option('--namespace <name>', 'namespace to watch; repeat for several (default: all)')
        .env('AGENT_DEPLOY_NAMESPACES')
        .argParser((value: string, previous: string[] = []) => [
          ...previous,
          ...value.split(',').filter(Boolean),
        ])
        .default([]),
    )
    .addOption(
      new Option('--resync <duration>', 'how often every deployment is re-read from the service')
        .env('AGENT_DEPLOY_RESYNC')
        .default('10m'),
    )
    .option('--concurrency <n>', 'resources reconciled at once', '4')
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .addOption(
      new Option('--health-port <port>', '/healthz, /readyz and /metrics port (0: off)')
        .env('AGENT_DEPLOY_HEALTH_PORT')
        .default('8081'),
    )
    .addOption(new Option('--health-host <host>', 'address for the health port').default('127.0.0.1'))
    .option('--leader-elect', 'run the controllers only while holding the leader Lease', false)
    .addOption(
      new Option(
        '--leader-election-namespace <name>',
        "namespace of the leader Lease (default: the pod's own namespace, else default)",
      ).env('AGENT_DEPLOY_LEADER_ELECTION_NAMESPACE'),
    )
    .addOption(
      new Option('--leader-election-id <name>', 'name of the leader Lease')
        .env('AGENT_DEPLOY_LEADER_ELECTION_ID')
        .default('agent-deploy-operator'),
    )
    .addOption(
      new Option(
        '--default-workspace <name>',
        "ClusterWorkspace for resources that name no spec.workspaceRef (default: the operator's own URL, tenant and key)",
      ).env('AGENT_DEPLOY_DEFAULT_WORKSPACE'),
    )
    .addOption(
      new Option(
        '--cluster-resource-namespace <name>',
        "namespace of a ClusterWorkspace's Secret when it names none (default: the pod's own namespace, else default); with --namespace, its Secrets are watched too",
      ).env('AGENT_DEPLOY_CLUSTER_RESOURCE_NAMESPACE'),
    )
    .action(run);
}

async function run(flags: Flags): Promise<void> {
  const logger = pino({ level: flags.logLevel, base: { component: 'agent-deploy-operator' } });
  const kubeconfig = loadKubeconfig({ file: flags.kubeconfig });
  const kube = await KubeClient.fromKubeConfig(kubeconfig);
  const registry = new Registry();
  // process_resident_memory_bytes, nodejs_heap_size_used_bytes, GC and event-loop lag: what memory alerts read.
  collectDefaultMetrics({ register: registry });
  /** Every client of the operator: its own auth gate (a rejected key holds back its workspace's calls only). */
  const client = (
    workspace: WorkspaceKey,
    baseUrl: string,
    tenantId: string | undefined,
    apiKey: ApiKeySource,
  ) =>
    new ServiceClient({
      baseUrl,
      apiKey,
      authGate: { logger: logger.child({ workspace }) },
      ...(tenantId ? { tenantId } : {}),
      onCall: serviceCallMetrics(registry, workspace),
    });
  // A key file is read again when it changes. Without any key, only resources naming a workspace act.
  const ownKey = hasApiKey(flags) ? apiKeySource(flags) : undefined;
  const own =
    ownKey &&
    new WorkspaceConnection(ownWorkspace, client(ownWorkspace, flags.serviceUrl, flags.tenantId, ownKey), {
      serviceUrl: flags.serviceUrl,
      ...(flags.tenantId ? { tenantId: flags.tenantId } : {}),
    });
  const resyncMs = parseDuration(flags.resync);
  const concurrency = Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`--concurrency must be a whole number ≥ 1, not ${flags.concurrency}`);

  const clusterResourceNamespace = flags.clusterResourceNamespace ?? defaultLeaseNamespace();
  const informers = new SharedInformers(kube, {
    namespaces: flags.namespace.length > 0 ? flags.namespace : undefined,
    // With --namespace, a ClusterWorkspace's Secret must be in a watched namespace, or in the one
    // --cluster-resource-namespace names: its Secrets are then watched too (which RBAC must allow).
    alsoWatch: (ref) =>
      ref === SECRETS && flags.clusterResourceNamespace ? [flags.clusterResourceNamespace] : [],
    resyncMs,
    logger,
  });
  const workspaceInformers = {
    Workspace: informers.resource(WORKSPACES),
    ClusterWorkspace: informers.resource(CLUSTER_WORKSPACES),
  };
  const workspaces = new Workspaces({
    fallback: fallbackWorkspace(flags.defaultWorkspace),
    own,
    exists: (key) => {
      const parsed = parseWorkspaceKey(key);
      if (!parsed) return false;
      return parsed.kind === 'Workspace'
        ? workspaceInformers.Workspace.get(`${parsed.namespace}/${parsed.name}`) !== undefined
        : workspaceInformers.ClusterWorkspace.get(parsed.name) !== undefined;
    },
    connect: (key, settings, secret) => {
      const apiKey = new SecretKeySource(secret);
      return new WorkspaceConnection(
        key,
        client(key, settings.serviceUrl, settings.tenantId, apiKey),
        settings,
        apiKey,
      );
    },
  });
  const context = {
    kube,
    workspaces,
    workspaceDefaults: {
      serviceUrl: flags.serviceUrl,
      tenantId: flags.tenantId,
      clusterResourceNamespace,
    },
    informers,
    resyncMs,
    concurrency,
    registry,
    logger,
  };
  const controllers = controllerFactories.map((factory) => factory(context));
  const startControllers = () => Promise.all(controllers.map((c) => c.start()));
  const setLeader = leaderMetric(registry);
  let stopping = false;
  const lease = {
    namespace: flags.leaderElectionNamespace ?? defaultLeaseNamespace(),
    name: flags.leaderElectionId,
    identity: leaderIdentity(),
  };
  const elector = flags.leaderElect
    ? new LeaderElector({
        client: kube,
        ...lease,
        logger,
        onStartedLeading: () => {
          if (stopping) return;
          setLeader(true);
          startControllers().catch((err: Error) => {
            logger.error({ err: err.message }, 'controllers failed to start; exiting');
            process.exit(1);
          });
        },
        onStoppedLeading: () => {
          setLeader(false);
          if (stopping) return;
          logger.error('lost the leader lease; exiting so that only the new leader reconciles');
          process.exit(1);
        },
      })
    : undefined;

  const ready = controllersReady(controllers.map((c) => c.controller));
  const port = Number(flags.healthPort);
  const health =
    port > 0
      ? await startHealthServer({
          port,
          host: flags.healthHost,
          registry,
          healthz: informersFresh(informers.all()),
          readyz: elector ? readyWhenStandingBy(() => elector.isLeader(), ready) : ready,
        })
      : undefined;
  onShutdownSignal(
    async () => {
      stopping = true;
      // Controllers first (in-flight reconciles finish while we still hold the lease), then release it.
      await Promise.all(controllers.map((c) => c.stop()));
      await elector?.stop();
      await health?.close();
      await workspaces.close();
      await kube.close();
    },
    { logger },
  );
  logger.info(
    {
      cluster: kubeconfig.cluster.server,
      kubeconfig: `${kubeconfig.source} (context ${kubeconfig.context})`,
      namespaces: flags.namespace.length > 0 ? flags.namespace : 'all',
      defaultWorkspace: describeWorkspace(workspaces.fallback),
      resyncMs,
      concurrency,
      ...(flags.leaderElect
        ? { lease: `${lease.namespace}/${lease.name}`, identity: lease.identity }
        : { leaderElection: false }),
      ...(health ? { healthPort: health.port } : {}),
    },
    'operator starting',
  );
  if (elector) {
    elector.start();
    return;
  }
  setLeader(true);
  await startControllers();
}
