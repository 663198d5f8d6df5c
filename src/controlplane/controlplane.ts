// A real local Kubernetes control plane — etcd + kube-apiserver on loopback, free ports, RBAC on —
// for the integration tests and the sandbox, the way envtest serves controller-runtime projects.
// There is no controller-manager: namespaces are never finalized and nothing garbage-collects.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { ensureBinaries } from './binaries.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { freePort } from './ports.ts';
import { removeWhenGone, type ServerProcess, startServer } from './process.ts';

export interface ControlPlaneOptions {
  /** Working directory (data, certs, logs, kubeconfig); a fresh temp dir by default, removed on stop. */
  dir?: string;
  progress?: (line: string) => void;
  /** A CA whose client certificates the apiserver accepts (CN = user, O = groups), as clusters do. */
  clientCaFile?: string;
}

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly dir: string;
  /** Admin kubeconfig (a token in group system:masters). */
  readonly kubeconfigPath: string;
  /** PEM of the CA that signed the apiserver's serving certificate. */
  readonly caData: string;
  readonly adminToken: string;
  /** Stops kube-apiserver (SIGKILL when `crash`) and starts it again on the same port and data. */
  restartApiserver(options?: { crash?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const progress = options.progress ?? (() => {});
  const bins = await ensureBinaries(progress);
  const ownDir = !options.dir;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'agent-deploy-cp-'));
  // It holds etcd's data, the service-account signing key and the admin token: never left behind.
  if (ownDir) removeWhenGone([dir]);
  const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];

  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  writeFileSync(join(dir, 'sa.pub'), publicKey);
  writeFileSync(join(dir, 'sa.key'), privateKey, { mode: 0o600 });
  const adminToken = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${adminToken},admin,admin,"system:masters"\n`, { mode: 0o600 });

  const etcd = startServer(
    'etcd',
    bins.etcd,
    [
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    join(dir, 'etcd.log'),
  );
  const servers: ServerProcess[] = [etcd];
  const stopAll = async () => {
    for (const server of servers.reverse()) await server.stop();
  };

  const apiserverArgs = [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    `--secure-port=${apiPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${join(dir, 'certs')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--authorization-mode=RBAC',
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
    // No controller-manager creates ServiceAccount tokens here; TokenRequest still works.
    '--disable-admission-plugins=ServiceAccount',
    '--allow-privileged=true',
    '--enable-priority-and-fairness=false',
    ...(options.clientCaFile ? [`--client-ca-file=${options.clientCaFile}`] : []),
  ];
  let apiserver: ServerProcess;
  const server = `https://127.0.0.1:${apiPort}`;
  const startApiserver = async () => {
    apiserver = startServer(
      'kube-apiserver',
      bins.kubeApiserver,
      apiserverArgs,
      join(dir, 'kube-apiserver.log'),
    );
    servers.push(apiserver);
    await waitReady(apiserver, `${server}/readyz`, adminToken);
  };

  try {
    await waitHttp(etcd, `http://127.0.0.1:${etcdPort}/health`);
    progress(`control plane: etcd on 127.0.0.1:${etcdPort}, starting kube-apiserver on ${server}`);
    await startApiserver();
  } catch (err) {
    await stopAll();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const caData = readFileSync(join(dir, 'certs', 'apiserver.crt'), 'utf8');
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigYaml({ server, caData, user: 'admin', token: adminToken }), {
    mode: 0o600,
  });
  progress(`control plane: ready at ${server}`);

  return {
    server,
    dir,
    kubeconfigPath,
    caData,
    adminToken,
    async restartApiserver({ crash = false } = {}) {
      const old = apiserver;
      if (crash) old.kill();
      await old.stop();
      servers.splice(servers.indexOf(old), 1);
      await startApiserver();
    },
    async stop() {
      await stopAll();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

async function waitHttp(proc: ServerProcess, url: string, token?: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (proc.hasExited()) throw new Error(`${proc.name} exited while starting:\n${proc.logTail()}`);
    try {
      const res = await request(url, {
        dispatcher: insecure,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        headersTimeout: 2_000,
        bodyTimeout: 2_000,
      });
      const body = await res.body.text();
      if (res.statusCode === 200) return;
      last = `${res.statusCode} ${body.slice(0, 500)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${proc.name} was not ready within ${timeoutMs / 1000}s (${last}):\n${proc.logTail()}`);
}

const waitReady = (proc: ServerProcess, url: string, token: string) => waitHttp(proc, url, token);
