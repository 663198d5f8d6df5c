// A TCP relay on 127.0.0.1 in front of the apiserver that can make live connections go silent
// without closing them: the network failure that leaves a watch hanging forever.

import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  /** While set, new connections are accepted but carry nothing either (the peer is unreachable). */
  blackhole = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: URL): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (client) => {
      if (proxy.blackhole) {
        const silent: [Socket, Socket] = [client, client];
        proxy.#pairs.add(silent);
        client.resume();
        client.on('close', () => proxy.#pairs.delete(silent)).on('error', () => client.destroy());
        return;
      }
      const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
      const pair: [Socket, Socket] = [client, upstream];
      proxy.#pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
        proxy.#pairs.delete(pair);
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Connections open right now. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** Every open connection stops carrying bytes, both ways, but stays open. New connections work. */
  silenceAll(): void {
    for (const [client, upstream] of this.#pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      // Keep reading, but discard: bytes go nowhere, yet a close by either side is still seen.
      client.resume();
      upstream.resume();
    }
  }

  async close(): Promise<void> {
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A copy of `kc` whose current cluster is reached through this proxy. */
  kubeConfig(kc: KubeConfig): KubeConfig {
    const current = kc.getCurrentCluster()!;
    const proxied = new KubeConfig();
    proxied.loadFromOptions({
      clusters: kc
        .getClusters()
        .map((c) => (c.name === current.name ? { ...c, server: `https://127.0.0.1:${this.port}` } : c)),
      users: kc.getUsers(),
      contexts: kc.getContexts(),
      currentContext: kc.getCurrentContext(),
    });
    return proxied;
  }
}
