// The credentials of one kubeconfig user, fresh for every request — never captured once:
// - a token file (`token-file`, the in-cluster service-account token) is re-read at most once a minute,
//   as client-go does, and at once after the apiserver refused it;
// - an exec plugin runs through client-node's ExecAuth, which caches its ExecCredential until
//   `expirationTimestamp`; one run serves every request waiting meanwhile, and a refused credential
//   (401) is dropped so that the next request runs the plugin again. Its client certificate may
//   change with it (kube-dispatchers.ts then opens new connections);
// - static tokens, basic auth and client certificates from the kubeconfig are read once;
// - other auth-providers (oidc, the old gcp/azure) go through client-node's full KubeConfig, loaded
//   only then because it is heavy (see kubeconfig.ts).
// Errors name the user and the plugin or file, never a token or a plugin's output.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Cluster, KubeconfigLike, KubeUser } from './kubeconfig.ts';

export interface Credentials {
  /** Authorization and impersonation headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** PEM client certificate and key, when the user authenticates with one. */
  readonly cert?: string;
  readonly key?: string;
}

interface Source {
  get(): Promise<Credentials>;
  /** Drops `used` if it is still the cached credential; false when nothing can be refreshed. */
  refused(used: Credentials): boolean;
}

export interface CredentialOptions {
  /** The kubeconfig the user came from: used as is for auth-providers, when it can apply them. */
  kubeconfig?: KubeconfigLike;
  cluster?: Cluster;
  now?: () => number;
  /** How long a token file is trusted before it is read again (default 60 s, as client-go). */
  tokenFileMaxAgeMs?: number;
}

export class UserCredentials {
  readonly #static: Credentials;
  readonly #source: Source | undefined;

  constructor(user: KubeUser | null, options: CredentialOptions = {}) {
    this.#static = staticCredentials(user);
    this.#source = user ? dynamicSource(user, options) : undefined;
  }

  async get(): Promise<Credentials> {
    if (!this.#source) return this.#static;
    const fresh = await this.#source.get();
    return {
      headers: { ...this.#static.headers, ...fresh.headers },
      ...pem('cert', fresh.cert ?? this.#static.cert),
      ...pem('key', fresh.key ?? this.#static.key),
    };
  }

  /**
   * The apiserver answered 401 to a request made with `used`: drop it so that the next get() fetches
   * new credentials. Returns whether a retry may succeed with them.
   */
  refused(used: Credentials): boolean {
    return this.#source?.refused(used) ?? false;
  }
}

const pem = (name: 'cert' | 'key', value: string | undefined) => (value ? { [name]: value } : {});

function staticCredentials(user: KubeUser | null): Credentials {
  if (!user) return { headers: {} };
  const headers: Record<string, string> = {};
  if (user.username) {
    headers.authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
  }
  if (user.token) headers.authorization = `Bearer ${user.token}`;
  if (user.impersonateUser) headers['impersonate-user'] = user.impersonateUser;
  return {
    headers,
    ...pem('cert', fileOrData(user.certFile, user.certData)),
    ...pem('key', fileOrData(user.keyFile, user.keyData)),
  };
}

function fileOrData(file: string | undefined | null, data: string | undefined | null): string | undefined {
  if (file) return readFileSync(file, 'utf8');
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}

function dynamicSource(user: KubeUser, options: CredentialOptions): Source | undefined {
  const provider = user.authProvider as { name?: string; config?: Record<string, unknown> } | undefined;
  if (user.exec || provider?.name === 'exec' || provider?.config?.exec) return new ExecPlugin(user);
  const tokenFile = user.tokenFile ?? (provider?.config?.tokenFile as string | undefined);
  if (tokenFile) {
    return new TokenFile(tokenFile, options.now ?? Date.now, options.tokenFileMaxAgeMs ?? 60_000);
  }
  if (provider) return new AuthProvider(user, options);
  return undefined;
}

const sameCredentials = (a: Credentials, b: Credentials | undefined): boolean =>
  b !== undefined &&
  a.headers.authorization === b.headers.authorization &&
  a.cert === b.cert &&
  a.key === b.key;

class TokenFile implements Source {
  readonly #path: string;
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  #token: string | undefined;
  #readAt = 0;

  constructor(path: string, now: () => number, maxAgeMs: number) {
    this.#path = path;
    this.#now = now;
    this.#maxAgeMs = maxAgeMs;
  }

  async get(): Promise<Credentials> {
    if (this.#token === undefined || this.#now() - this.#readAt >= this.#maxAgeMs) {
      let text: string;
      try {
        text = await readFile(this.#path, 'utf8');
      } catch (err) {
        throw new Error(
          `cannot read token file ${this.#path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        );
      }
      // client-go trims too: a token file written by hand often ends with a newline.
      this.#token = text.trim();
      this.#readAt = this.#now();
    }
    return { headers: { authorization: `Bearer ${this.#token}` } };
  }

  refused(used: Credentials): boolean {
    if (used.headers.authorization === `Bearer ${this.#token}`) this.#readAt = Number.NEGATIVE_INFINITY;
    return true;
  }
}

type ExecAuthLike = { applyAuthentication(user: KubeUser, opts: object): Promise<void> };
const loadExecAuth = async (): Promise<ExecAuthLike> =>
  new (await import('@kubernetes/client-node/dist/exec_auth.js')).ExecAuth();

class ExecPlugin implements Source {
  readonly #user: KubeUser;
  readonly #command: string;
  #auth: Promise<ExecAuthLike> | undefined;
  #pending: Promise<Credentials> | undefined;
  #last: Credentials | undefined;

  constructor(user: KubeUser) {
    const provider = user.authProvider as { config?: { exec?: ExecConfig } } | undefined;
    const exec = (user.exec ?? provider?.config?.exec) as ExecConfig;
    this.#command = String(exec?.command ?? '');
    // client-go tells every plugin how it runs (KUBERNETES_EXEC_INFO); some plugins require it.
    const info = JSON.stringify({
      apiVersion: exec?.apiVersion ?? 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    const withInfo = { ...exec, env: [...(exec?.env ?? []), { name: 'KUBERNETES_EXEC_INFO', value: info }] };
    this.#user = user.exec
      ? { ...user, exec: withInfo }
      : { ...user, exec: withInfo, authProvider: undefined };
  }

  get(): Promise<Credentials> {
    // ExecAuth has no guard of its own: without this, every request waiting for an expired
    // credential would start the plugin.
    this.#pending ??= this.#run().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #run(): Promise<Credentials> {
    this.#auth ??= loadExecAuth();
    const opts: { headers?: Record<string, string>; cert?: string; key?: string } = {};
    try {
      await (await this.#auth).applyAuthentication(this.#user, opts);
    } catch (err) {
      // ExecAuth may have cached what it could not use: start the next attempt from scratch.
      this.#auth = undefined;
      throw this.#error(err as NodeJS.ErrnoException);
    }
    const authorization = opts.headers?.Authorization;
    this.#last = {
      headers: authorization ? { authorization } : {},
      ...pem('cert', opts.cert),
      ...pem('key', opts.key),
    };
    return this.#last;
  }

  refused(used: Credentials): boolean {
    if (sameCredentials(used, this.#last)) {
      // A new ExecAuth has an empty cache: the next get() runs the plugin.
      this.#auth = undefined;
      this.#last = undefined;
    }
    return true;
  }

  #error(err: NodeJS.ErrnoException): Error {
    const plugin = `exec plugin ${this.#command} (user ${this.#user.name})`;
    if (err.code === 'ENOENT') {
      const hint = (this.#user.exec as ExecConfig).installHint;
      return new Error(`${plugin} not found${hint ? `: ${hint}` : ''}`);
    }
    // A parse error or a missing `status` quotes the plugin's output, which holds credentials.
    if (err instanceof SyntaxError || err instanceof TypeError) {
      return new Error(`${plugin} printed no valid ExecCredential`);
    }
    // ExecAuth's other errors are the plugin's stderr (it failed), which is meant for people.
    return new Error(`${plugin} failed: ${err.message.trim().split('\n')[0]?.slice(0, 300) ?? ''}`);
  }
}

interface ExecConfig {
  command?: string;
  apiVersion?: string;
  env?: Array<{ name: string; value: string }>;
  installHint?: string;
}

/** oidc and the other auth-providers: client-node's KubeConfig applies them (and refreshes them itself). */
class AuthProvider implements Source {
  readonly #kubeconfig: Promise<{ applyToHTTPSOptions(opts: object): Promise<void> }>;

  constructor(user: KubeUser, options: CredentialOptions) {
    const given = options.kubeconfig as { applyToHTTPSOptions?: unknown } | undefined;
    this.#kubeconfig =
      typeof given?.applyToHTTPSOptions === 'function'
        ? Promise.resolve(given as never)
        : import('@kubernetes/client-node').then(({ KubeConfig }) => {
            const kc = new KubeConfig();
            const cluster = options.cluster ?? {
              name: 'cluster',
              server: 'https://localhost',
              skipTLSVerify: false,
            };
            kc.loadFromClusterAndUser(cluster, user);
            return kc;
          });
  }

  async get(): Promise<Credentials> {
    const opts: { headers?: Record<string, string> } = {};
    await (await this.#kubeconfig).applyToHTTPSOptions(opts);
    const authorization = opts.headers?.Authorization;
    return { headers: authorization ? { authorization } : {} };
  }

  refused(): boolean {
    return false;
  }
}
