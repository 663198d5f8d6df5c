// /healthz, /readyz and /metrics on one small node:http server (127.0.0.1 unless told otherwise).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Controller } from './controller.ts';
import type { Informer } from './informer.ts';
import type { KubeObject } from './kube-objects.ts';

/** Returns the problems found; none means healthy. */
export type Check = () => string[];

export interface HealthServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  healthz: Check;
  readyz: Check;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** Fails while an informer's watch has been silent past its staleness limit. */
export function informersFresh(
  informers: Informer<KubeObject>[],
  name = (i: number) => `informer ${i}`,
): Check {
  return () => informers.flatMap((informer, i) => (informer.isStale() ? [`${name(i)}: watch stale`] : []));
}

/** Fails until every controller has synced its caches and started its workers. */
export function controllersReady(controllers: Controller[]): Check {
  return () => controllers.filter((c) => !c.ready()).map((c) => `${c.name}: caches not synced`);
}

/**
 * Readiness of a process under leader election: a standby is ready (it is healthy and waiting, and
 * must not be restarted or count as a failed rollout); the leader is ready once `whenLeading` passes.
 */
export function readyWhenStandingBy(isLeader: () => boolean, whenLeading: Check): Check {
  return () => (isLeader() ? whenLeading() : []);
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const check = path === '/healthz' ? options.healthz : path === '/readyz' ? options.readyz : undefined;
    if (check) {
      const problems = check();
      res.writeHead(problems.length === 0 ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(problems.length === 0 ? 'ok\n' : `${problems.join('\n')}\n`);
      return;
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': options.registry.contentType });
          res.end(text);
        },
        (err: Error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`${err.message}\n`);
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
