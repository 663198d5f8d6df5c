// A tiny real HTTP server on 127.0.0.1 that misbehaves on cue, for the client's retry, timeout and
// contract tests: each request is answered by the test's handler, and every request is recorded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type StubHandler = (req: StubRequest, res: ServerResponse, n: number) => void;

export interface HttpStub {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export async function startStub(handler: StubHandler): Promise<HttpStub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      requests.push(recorded);
      handler(recorded, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A valid listener body (§2.8), for handlers that answer GET /v2/listeners/{id}. */
export const listenerBody = {
  id: 'dddddddd-0000-4000-8000-000000000001',
  compute_type: 'k8s',
  compute_id: 'dev-cluster',
  compute_config: { k8s_namespaces: ['default'] },
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  version: '0.1.0',
};

/** A valid deployment body (§2.1), for handlers that answer GET /v2/deployments. */
export const deploymentBody = {
  id: 'eeeeeeee-0000-4000-8000-000000000001',
  tenant_id: 'ffffffff-0000-4000-8000-000000000001',
  name: 'agent',
  source: 'internal_docker',
  source_config: { deployment_type: 'dev' },
  source_revision_config: { image_uri: 'registry.example/agent:1' },
  secrets: [],
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'aaaaaaaa-0000-4000-8000-000000000001',
  active_revision_id: 'aaaaaaaa-0000-4000-8000-000000000001',
};

/** A valid revision body (§2.7), the latest revision of deploymentBody. */
export const revisionBody = {
  id: 'aaaaaaaa-0000-4000-8000-000000000001',
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  status: 'DEPLOYED',
  source: 'internal_docker',
  source_revision_config: { image_uri: 'registry.example/agent:1' },
};
