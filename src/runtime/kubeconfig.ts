// Which cluster and credentials to use, found the way kubectl finds them (client-go's clientcmd):
//
// 1. `--kubeconfig FILE`: that one file, which must exist;
// 2. else $KUBECONFIG, a list of files (':'-separated) merged in order: the first file to define a
//    cluster, user or context name wins it, current-context comes from the first file that sets one,
//    and files that do not exist are skipped;
// 3. else ~/.kube/config when it exists;
// 4. when that yields no configuration at all: the pod's service account (in-cluster), whose token
//    file the kubelet rotates (kube-credentials.ts re-reads it).
//
// Relative paths in a file (certificate-authority, client-certificate, client-key, token-file, an exec
// command with a slash) are relative to that file, as in clientcmd.
//
// Entries are parsed by client-node's own config_types (the same shapes and checks as its KubeConfig),
// imported deep: client-node's KubeConfig class lives in dist/config.js, which imports every
// generated API model (≈30 MB of heap and code the operator never uses).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import {
  type Cluster,
  type Context,
  newClusters,
  newContexts,
  newUsers,
  type User,
} from '@kubernetes/client-node/dist/config_types.js';
import { parse } from 'yaml';

export type { Cluster, Context };

/** A kubeconfig user; `tokenFile` is re-read as it rotates (client-node reads `token-file` only once). */
export type KubeUser = User & { readonly tokenFile?: string };

/** What KubeClient needs; client-node's KubeConfig has the same two methods. */
export interface KubeconfigLike {
  getCurrentCluster(): Cluster | null;
  getCurrentUser(): KubeUser | null;
}

export interface KubeconfigSources {
  /** `--kubeconfig`: exactly this file. */
  file?: string;
  /** Where KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The service-account directory of a pod (tests point it elsewhere). */
  serviceAccountDir?: string;
}

/** The cluster and user of the current context, and where they came from (for messages). */
export interface LoadedKubeconfig extends KubeconfigLike {
  readonly cluster: Cluster;
  readonly user: KubeUser | null;
  /** The context's name, or 'in-cluster'. */
  readonly context: string;
  /** The context's namespace, if it names one. */
  readonly namespace?: string | undefined;
  /** The files read, or the service-account directory. */
  readonly source: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

interface Config {
  clusters: Cluster[];
  users: KubeUser[];
  contexts: Context[];
  currentContext?: string;
}

export function loadKubeconfig(sources: KubeconfigSources = {}): LoadedKubeconfig {
  const env = sources.env ?? process.env;
  const files = candidateFiles(sources.file, env);
  const read = files.filter((file) => file === sources.file || existsSync(file));
  const config = merge(read.map(readConfig));
  const source = read.join(delimiter);
  if (!config.currentContext) {
    const inCluster = inClusterConfig(env, sources.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
    if (inCluster && isEmpty(config)) return inCluster;
    if (read.length > 0) throw new Error(`kubeconfig ${source} sets no current-context`);
    throw new Error(
      env.KUBECONFIG && !sources.file
        ? `no kubeconfig: none of the files in KUBECONFIG (${env.KUBECONFIG}) exists, and this is not a pod with a service account`
        : 'no kubeconfig: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
    );
  }
  return resolveContext(config, config.currentContext, source);
}

function candidateFiles(file: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (file) return [file];
  if (env.KUBECONFIG) return [...new Set(env.KUBECONFIG.split(delimiter).filter(Boolean))];
  return [join(env.HOME || homedir(), '.kube', 'config')];
}

function readConfig(file: string): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read kubeconfig ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return parseConfig(text, dirname(resolve(file)));
  } catch (err) {
    // Only the first line: a YAML error's later lines quote the file, which may hold a token.
    throw new Error(`kubeconfig ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}

type Raw = Record<string, unknown>;

/** One file's entries; relative paths are made absolute against `base`, the file's directory. */
function parseConfig(text: string, base: string): Config {
  const raw = (parse(text) ?? {}) as Raw;
  const abs = (p: unknown) => (typeof p === 'string' && p !== '' && !isAbsolute(p) ? join(base, p) : p);
  const rawClusters = list(raw.clusters, 'clusters').map((entry) => {
    const cluster = entry.cluster as Raw | undefined;
    if (!cluster?.['certificate-authority']) return entry;
    return {
      ...entry,
      cluster: { ...cluster, 'certificate-authority': abs(cluster['certificate-authority']) },
    };
  });
  const tokenFiles = new Map<string, string>();
  const rawUsers = list(raw.users, 'users').map((entry) => {
    const user = entry.user as Raw | undefined;
    if (!user) return entry;
    const { 'token-file': tokenFile, ...rest } = user;
    // newUsers would read token-file once, relative to the working directory; we re-read it instead.
    if (typeof tokenFile === 'string' && tokenFile)
      tokenFiles.set(String(entry.name), abs(tokenFile) as string);
    const exec = rest.exec as Raw | undefined;
    const command = exec?.command;
    return {
      ...entry,
      user: {
        ...rest,
        ...(rest['client-certificate'] ? { 'client-certificate': abs(rest['client-certificate']) } : {}),
        ...(rest['client-key'] ? { 'client-key': abs(rest['client-key']) } : {}),
        ...(exec && typeof command === 'string' && command.includes('/')
          ? { exec: { ...exec, command: abs(command) } }
          : {}),
      },
    };
  });
  const users: KubeUser[] = newUsers(rawUsers).map((user) => {
    const tokenFile = tokenFiles.get(user.name);
    return tokenFile ? { ...user, tokenFile } : user;
  });
  const current = raw['current-context'];
  return {
    clusters: unique(newClusters(rawClusters), 'cluster'),
    users: unique(users, 'user'),
    contexts: unique(newContexts(list(raw.contexts, 'contexts')), 'context'),
    ...(typeof current === 'string' && current ? { currentContext: current } : {}),
  };
}

function list(value: unknown, what: string): Raw[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value as Raw[];
}

/** A name twice in one file is an error in clientcmd too (its list becomes a map). */
function unique<T extends { name: string }>(items: T[], what: string): T[] {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.name)) throw new Error(`${what} "${item.name}" is defined twice`);
    seen.add(item.name);
  }
  return items;
}

/** clientcmd's merge: the first file to define a name keeps it, and the first current-context wins. */
function merge(configs: Config[]): Config {
  const firstWins = <T extends { name: string }>(pick: (c: Config) => T[]): T[] => {
    const byName = new Map<string, T>();
    for (const config of configs)
      for (const item of pick(config)) if (!byName.has(item.name)) byName.set(item.name, item);
    return [...byName.values()];
  };
  const currentContext = configs.find((c) => c.currentContext)?.currentContext;
  return {
    clusters: firstWins((c) => c.clusters),
    users: firstWins((c) => c.users),
    contexts: firstWins((c) => c.contexts),
    ...(currentContext ? { currentContext } : {}),
  };
}

function isEmpty(config: Config): boolean {
  return config.clusters.length === 0 && config.users.length === 0 && config.contexts.length === 0;
}

function resolveContext(config: Config, name: string, source: string): LoadedKubeconfig {
  const context = config.contexts.find((c) => c.name === name);
  if (!context) throw new Error(`kubeconfig ${source}: context "${name}" not found`);
  const cluster = config.clusters.find((c) => c.name === context.cluster);
  if (!cluster)
    throw new Error(`kubeconfig ${source}: cluster "${context.cluster}" of context "${name}" not found`);
  const user = context.user ? config.users.find((u) => u.name === context.user) : undefined;
  if (context.user && !user)
    throw new Error(`kubeconfig ${source}: user "${context.user}" of context "${name}" not found`);
  return { ...loaded(cluster, user ?? null, name, source), namespace: context.namespace || undefined };
}

/** As client-go's InClusterConfig: possible when the service env is set and the token file exists. */
function inClusterConfig(env: NodeJS.ProcessEnv, dir: string): LoadedKubeconfig | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const tokenFile = join(dir, 'token');
  if (!host || !port || !isFile(tokenFile)) return undefined;
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const cluster: Cluster = { name: 'in-cluster', server, caFile: join(dir, 'ca.crt'), skipTLSVerify: false };
  return loaded(cluster, { name: 'in-cluster', tokenFile }, 'in-cluster', dir);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function loaded(cluster: Cluster, user: KubeUser | null, context: string, source: string): LoadedKubeconfig {
  return {
    cluster,
    user,
    context,
    source,
    getCurrentCluster: () => cluster,
    getCurrentUser: () => user,
  };
}
