// undici dispatchers (connection pools) to one apiserver, following the client certificate.
//
// TLS client certificates are presented when a connection is opened, so they live in the
// dispatcher, not in a request's headers. When the certificate changes (an exec plugin handed out a
// new one), requests go through a new pool and the old pool is closed once its requests finished:
// its connections still authenticate as the old certificate, which may be expired or revoked.
import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher, ProxyAgent } from 'undici';
import type { Credentials } from './kube-credentials.ts';
import type { Cluster } from './kubeconfig.ts';

interface ClientCert {
  cert?: string;
  key?: string;
}

/**
 * Connections of the shared pool. Unbounded, a burst (5,000 creates, each with its fire-and-forget Event)
 * opened hundreds of TLS connections at once, and their buffers stayed in the process's memory; requests
 * beyond the bound wait in the pool's queue instead.
 */
const pooledConnections = 16;

export class KubeDispatchers {
  readonly #connect: Record<string, unknown>;
  readonly #proxyUrl: string | undefined;
  #pool: { dispatcher: Dispatcher; cert?: string; key?: string } | undefined;
  readonly #retired = new Set<Dispatcher>();

  constructor(cluster: Cluster) {
    const ca = cluster.caFile
      ? readFileSync(cluster.caFile)
      : cluster.caData
        ? Buffer.from(cluster.caData, 'base64')
        : undefined;
    this.#connect = {
      ...(ca ? { ca } : {}),
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
      ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
      // As client-go: below the 60 s idle timeout of common cloud load balancers.
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    };
    this.#proxyUrl = cluster.proxyUrl;
  }

  /** The shared pool for short requests made with `credentials`. */
  pooled(credentials: Credentials): Dispatcher {
    const pool = this.#pool;
    if (pool && pool.cert === credentials.cert && pool.key === credentials.key) return pool.dispatcher;
    if (pool) this.#retire(pool.dispatcher);
    const dispatcher = this.#agent(credentials, pooledConnections);
    this.#pool = { dispatcher, ...clientCert(credentials) };
    return dispatcher;
  }

  /** A dispatcher of its own (one per watch); the caller destroys it. */
  single(credentials: Credentials): Dispatcher {
    return this.#agent(credentials, 1);
  }

  #agent(credentials: Credentials, connections: number): Dispatcher {
    const connect = { ...this.#connect, ...clientCert(credentials) };
    return this.#proxyUrl
      ? new ProxyAgent({ uri: this.#proxyUrl, requestTls: connect, connections })
      : new Agent({ connect, connections });
  }

  /** Pools replaced after a certificate change that still finish requests. */
  get retiring(): number {
    return this.#retired.size;
  }

  /** Closes every connection at once; in-flight requests fail. */
  async destroy(): Promise<void> {
    const all = [...this.#retired, ...(this.#pool ? [this.#pool.dispatcher] : [])];
    this.#pool = undefined;
    await Promise.all(all.map((d) => d.destroy()));
  }

  #retire(dispatcher: Dispatcher): void {
    this.#retired.add(dispatcher);
    // close() lets queued and running requests finish, then ends the connections.
    dispatcher
      .close()
      .catch(() => {})
      .finally(() => this.#retired.delete(dispatcher));
  }
}

const clientCert = ({ cert, key }: Credentials): ClientCert => ({
  ...(cert ? { cert } : {}),
  ...(key ? { key } : {}),
});
