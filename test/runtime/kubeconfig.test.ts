// Finding the cluster and user as kubectl does: flag, KUBECONFIG list (clientcmd's merge), ~/.kube/config,
// in-cluster. Files only: nothing here talks to a cluster (kube-access.int.test.ts does).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadKubeconfig } from '../../src/runtime/kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function write(config: object | string, where = dir): string {
  const path = join(where, `config-${files++}`);
  writeFileSync(path, typeof config === 'string' ? config : stringify(config));
  return path;
}

const cluster = (name: string, server: string, extra: object = {}) => ({
  name,
  cluster: { server, ...extra },
});
const user = (name: string, fields: object) => ({ name, user: fields });
const context = (name: string, c: string, u?: string) => ({
  name,
  context: { cluster: c, ...(u ? { user: u } : {}) },
});

const emptyHome = mkdtempSync(join(dir, 'home-'));
const load = (KUBECONFIG?: string, file?: string) =>
  loadKubeconfig({
    env: { HOME: emptyHome, ...(KUBECONFIG ? { KUBECONFIG } : {}) },
    ...(file ? { file } : {}),
  });

describe('KUBECONFIG lists, merged as clientcmd merges them', () => {
  const a = write({
    clusters: [cluster('shared', 'https://a.example')],
    users: [user('alice', { token: 'token-a' })],
    contexts: [context('ctx-a', 'shared', 'alice')],
    'current-context': 'ctx-a',
  });
  const b = write({
    clusters: [cluster('shared', 'https://b.example'), cluster('only-b', 'https://only-b.example')],
    users: [user('alice', { token: 'token-b' }), user('bob', { token: 'token-bob' })],
    contexts: [context('ctx-b', 'only-b', 'bob')],
    'current-context': 'ctx-b',
  });

  it('gives each name and current-context to the first file that sets it', () => {
    const ab = load(`${a}:${b}`);
    expect(ab.context).toBe('ctx-a');
    expect(ab.cluster.server).toBe('https://a.example');
    expect(ab.user?.token).toBe('token-a');
    expect(ab.source).toBe(`${a}:${b}`);

    const ba = load(`${b}:${a}`);
    expect(ba.context).toBe('ctx-b');
    expect(ba.cluster.server).toBe('https://only-b.example');
    expect(ba.user?.token).toBe('token-bob');
  });

  it('resolves a context whose cluster and user live in different files', () => {
    const clusterFile = write({
      clusters: [cluster('prod', 'https://prod.example')],
      contexts: [context('prod', 'prod', 'carol')],
    });
    const userFile = write({ users: [user('carol', { token: 'token-carol' })], 'current-context': 'prod' });
    const kc = load(`${clusterFile}:${userFile}`);
    expect(kc.cluster.server).toBe('https://prod.example');
    expect(kc.user?.token).toBe('token-carol');
  });

  it('skips files that do not exist, as kubectl does', () => {
    expect(load(`${join(dir, 'missing')}:${a}::${join(dir, 'missing-too')}`).context).toBe('ctx-a');
  });

  it('takes current-context from the first file that sets one, even a later one', () => {
    const noCurrent = write({ clusters: [cluster('x', 'https://x.example')], contexts: [context('x', 'x')] });
    expect(load(`${noCurrent}:${b}`).context).toBe('ctx-b');
  });

  it('fails on a file it cannot parse instead of skipping it', () => {
    const broken = write('clusters: [\n  token: s3cr3t-value\n');
    expect(() => load(`${a}:${broken}`)).toThrow(broken);
    // The YAML error's code frame would quote the file, credentials included.
    expect(() => load(`${a}:${broken}`)).not.toThrow(/s3cr3t/);
  });

  it('rejects a name defined twice in one file, as clientcmd does', () => {
    const twice = write({
      clusters: [cluster('c', 'https://1.example'), cluster('c', 'https://2.example')],
      contexts: [context('c', 'c')],
      'current-context': 'c',
    });
    expect(() => load(twice)).toThrow(/cluster "c" is defined twice/);
  });

  it('names what a context refers to and is missing', () => {
    const dangling = write({
      clusters: [cluster('c', 'https://c.example')],
      contexts: [context('c', 'c', 'nobody'), context('d', 'nowhere')],
      'current-context': 'c',
    });
    expect(() => load(dangling)).toThrow(/user "nobody" of context "c" not found/);
    const noCluster = write({ contexts: [context('d', 'nowhere')], 'current-context': 'd' });
    expect(() => load(noCluster)).toThrow(/cluster "nowhere" of context "d" not found/);
  });
});

describe('--kubeconfig and ~/.kube/config', () => {
  const a = write({
    clusters: [cluster('a', 'https://a.example')],
    contexts: [context('a', 'a')],
    'current-context': 'a',
  });

  it('reads exactly the flag’s file, ahead of KUBECONFIG, and never splits it on ":"', () => {
    const other = write({
      clusters: [cluster('o', 'https://o.example')],
      contexts: [context('o', 'o')],
      'current-context': 'o',
    });
    expect(load(other, a).cluster.server).toBe('https://a.example');
    expect(() => load(undefined, `${a}:${other}`)).toThrow(/cannot read kubeconfig .*: ENOENT/);
  });

  it('fails when the flag’s file does not exist (kubectl does too)', () => {
    expect(() => load(undefined, join(dir, 'nope'))).toThrow(
      `cannot read kubeconfig ${join(dir, 'nope')}: ENOENT`,
    );
  });

  it('uses ~/.kube/config when neither is set, and not when KUBECONFIG is', () => {
    const home = mkdtempSync(join(dir, 'home-'));
    mkdirSync(join(home, '.kube'));
    writeFileSync(
      join(home, '.kube', 'config'),
      stringify({
        clusters: [cluster('h', 'https://home.example')],
        contexts: [context('h', 'h')],
        'current-context': 'h',
      }),
    );
    expect(loadKubeconfig({ env: { HOME: home } }).cluster.server).toBe('https://home.example');
    expect(loadKubeconfig({ env: { HOME: home, KUBECONFIG: a } }).cluster.server).toBe('https://a.example');
  });

  it('makes relative paths absolute against the file that holds them', () => {
    const sub = mkdtempSync(join(dir, 'sub-'));
    const config = {
      clusters: [cluster('c', 'https://c.example', { 'certificate-authority': 'ca.crt' })],
      users: [
        user('u', {
          'client-certificate': 'certs/u.crt',
          'client-key': '/abs/u.key',
          'token-file': 'token',
          exec: { command: './bin/plugin', apiVersion: 'client.authentication.k8s.io/v1' },
        }),
        user('v', { exec: { command: 'plugin-on-path' } }),
      ],
      contexts: [context('c', 'c', 'u'), context('v', 'c', 'v')],
    };
    const file = write({ ...config, 'current-context': 'c' }, sub);
    const kc = loadKubeconfig({ file, env: {} });
    expect(kc.cluster.caFile).toBe(join(sub, 'ca.crt'));
    expect(kc.user).toMatchObject({
      certFile: join(sub, 'certs/u.crt'),
      keyFile: '/abs/u.key',
      tokenFile: join(sub, 'token'),
      exec: { command: join(sub, 'bin/plugin') },
    });
    // token-file is kept as a path, to be re-read as it rotates, not read once at load.
    expect(kc.user?.token).toBeFalsy();
    // A command without a slash is looked up on PATH, so it stays as it is.
    const onPath = write({ ...config, 'current-context': 'v' }, sub);
    expect(loadKubeconfig({ file: onPath, env: {} }).user?.exec.command).toBe('plugin-on-path');
  });
});

describe('in-cluster, when no kubeconfig is set', () => {
  const sa = mkdtempSync(join(dir, 'serviceaccount-'));
  writeFileSync(join(sa, 'token'), 'pod-token');
  const podEnv = { HOME: emptyHome, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

  it('uses the service account when there is no flag, no KUBECONFIG and no ~/.kube/config', () => {
    const kc = loadKubeconfig({ env: podEnv, serviceAccountDir: sa });
    expect(kc.context).toBe('in-cluster');
    expect(kc.cluster).toMatchObject({ server: 'https://10.0.0.1:443', caFile: join(sa, 'ca.crt') });
    expect(kc.user).toMatchObject({ tokenFile: join(sa, 'token') });
    expect(kc.source).toBe(sa);
  });

  it('also when every file of KUBECONFIG is missing (clientcmd finds an empty config)', () => {
    const kc = loadKubeconfig({ env: { ...podEnv, KUBECONFIG: join(dir, 'gone') }, serviceAccountDir: sa });
    expect(kc.context).toBe('in-cluster');
  });

  it('brackets an IPv6 service host', () => {
    const kc = loadKubeconfig({
      env: { ...podEnv, KUBERNETES_SERVICE_HOST: 'fd00::1' },
      serviceAccountDir: sa,
    });
    expect(kc.cluster.server).toBe('https://[fd00::1]:443');
  });

  it('is not possible without the service env or the token file, and says what to do', () => {
    expect(() => loadKubeconfig({ env: { HOME: emptyHome }, serviceAccountDir: sa })).toThrow(
      /no kubeconfig: pass --kubeconfig, set KUBECONFIG/,
    );
    expect(() => loadKubeconfig({ env: podEnv, serviceAccountDir: join(dir, 'no-sa') })).toThrow(
      /no kubeconfig/,
    );
    const gone = join(dir, 'gone');
    expect(() =>
      loadKubeconfig({ env: { HOME: emptyHome, KUBECONFIG: gone }, serviceAccountDir: sa }),
    ).toThrow(`none of the files in KUBECONFIG (${gone}) exists`);
  });

  it('does not replace a kubeconfig that has entries but no current-context', () => {
    const noCurrent = write({ clusters: [cluster('x', 'https://x.example')], contexts: [context('x', 'x')] });
    expect(() =>
      loadKubeconfig({ env: { ...podEnv, KUBECONFIG: noCurrent }, serviceAccountDir: sa }),
    ).toThrow(`kubeconfig ${noCurrent} sets no current-context`);
  });
});
