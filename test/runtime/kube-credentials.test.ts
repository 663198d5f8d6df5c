// Credentials fetched per request: token files re-read, exec plugins re-run when their credential
// expires or is refused. The plugin is a real process (test/support/exec-plugin.ts); no cluster here —
// kube-access.int.test.ts runs the same against the apiserver.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserCredentials } from '../../src/runtime/kube-credentials.ts';
import { execPlugin } from '../support/exec-plugin.ts';

const dir = mkdtempSync(join(tmpdir(), 'credentials-test-'));
const bearer = async (c: UserCredentials) => (await c.get()).headers.authorization;

describe('static credentials', () => {
  it('turns token, basic auth, impersonation and client certificate data into headers and PEM', async () => {
    const creds = new UserCredentials({
      name: 'u',
      token: 't0k',
      impersonateUser: 'someone',
      certData: Buffer.from('CERT').toString('base64'),
      keyData: Buffer.from('KEY').toString('base64'),
    });
    expect(await creds.get()).toEqual({
      headers: { authorization: 'Bearer t0k', 'impersonate-user': 'someone' },
      cert: 'CERT',
      key: 'KEY',
    });
    expect(creds.refused(await creds.get())).toBe(false);
    const basic = new UserCredentials({ name: 'b', username: 'ann', password: 'pw' });
    expect(await bearer(basic)).toBe(`Basic ${Buffer.from('ann:pw').toString('base64')}`);
  });
});

describe('token file', () => {
  it('is trimmed, trusted for a minute, and read again at once after a refusal', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'first\n');
    let now = 0;
    const creds = new UserCredentials({ name: 'sa', tokenFile }, { now: () => now });
    expect(await bearer(creds)).toBe('Bearer first');

    writeFileSync(tokenFile, 'second');
    now = 59_000;
    expect(await bearer(creds)).toBe('Bearer first');
    now = 60_000;
    const second = await creds.get();
    expect(second.headers.authorization).toBe('Bearer second');

    writeFileSync(tokenFile, 'third');
    expect(creds.refused(second)).toBe(true);
    expect(await bearer(creds)).toBe('Bearer third');
  });

  it('also serves client-node’s in-cluster form (an auth-provider with a tokenFile)', async () => {
    const tokenFile = join(dir, 'in-cluster-token');
    writeFileSync(tokenFile, 'pod');
    const creds = new UserCredentials({
      name: 'in',
      authProvider: { name: 'tokenFile', config: { tokenFile } },
    });
    expect(await bearer(creds)).toBe('Bearer pod');
  });

  it('names the file, not its content, when it cannot be read', async () => {
    const creds = new UserCredentials({ name: 'sa', tokenFile: join(dir, 'absent') });
    await expect(creds.get()).rejects.toThrow(`cannot read token file ${join(dir, 'absent')}: ENOENT`);
  });
});

describe('exec plugin', () => {
  it('runs once while its credential is valid, once for many waiting requests, and tells it how it runs', async () => {
    const plugin = execPlugin({ token: 'a', expiresInSeconds: 3600 });
    const creds = new UserCredentials({ name: 'x', exec: plugin.exec });
    const all = await Promise.all(Array.from({ length: 8 }, () => bearer(creds)));
    expect(new Set(all)).toEqual(new Set(['Bearer a']));
    expect(await bearer(creds)).toBe('Bearer a');
    expect(plugin.runs()).toBe(1);
    expect(JSON.parse(plugin.execInfo())).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it('runs again once the credential expired', async () => {
    // Expired on arrival: every request needs a new run.
    const plugin = execPlugin({ token: 'a', expiresInSeconds: -1 });
    const creds = new UserCredentials({ name: 'x', exec: plugin.exec });
    expect(await bearer(creds)).toBe('Bearer a');
    plugin.setToken('b');
    expect(await bearer(creds)).toBe('Bearer b');
    expect(plugin.runs()).toBe(2);
  });

  it('runs again after the apiserver refused a credential without expiry, and only once for it', async () => {
    const plugin = execPlugin({ token: 'a' });
    const creds = new UserCredentials({ name: 'x', exec: plugin.exec });
    const refused = await creds.get();
    plugin.setToken('b');
    expect(await bearer(creds)).toBe('Bearer a');
    expect(creds.refused(refused)).toBe(true);
    expect(await bearer(creds)).toBe('Bearer b');
    // A late 401 for the old credential does not throw away the new one.
    expect(creds.refused(refused)).toBe(true);
    expect(await bearer(creds)).toBe('Bearer b');
    expect(plugin.runs()).toBe(2);
  });

  it('hands out the client certificate and key the plugin returns', async () => {
    const plugin = execPlugin();
    plugin.setCredential({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { clientCertificateData: 'CERT-PEM', clientKeyData: 'KEY-PEM' },
    });
    const creds = new UserCredentials({ name: 'x', exec: plugin.exec });
    expect(await creds.get()).toEqual({ headers: {}, cert: 'CERT-PEM', key: 'KEY-PEM' });
  });

  it('never quotes the plugin’s output in an error, and recovers once the plugin does', async () => {
    const plugin = execPlugin({ token: 'good' });
    const creds = new UserCredentials({ name: 'x', exec: plugin.exec });
    for (const output of ['token: s3cr3t-value', '{"kind":"ExecCredential","token":"s3cr3t-value"}']) {
      plugin.setOutput(output);
      const error = await creds.get().then(
        () => 'no error',
        (err: Error) => err.message,
      );
      expect(error).toMatch(/exec plugin .*plugin\.sh \(user x\) printed no valid ExecCredential/);
      expect(error).not.toContain('s3cr3t');
    }
    plugin.setOutput(undefined);
    expect(await bearer(creds)).toBe('Bearer good');
  });

  it('reports a failing plugin with its stderr, and a missing one with its install hint', async () => {
    const plugin = execPlugin();
    plugin.fail('login expired: run `cloud login`\nmore detail');
    await expect(new UserCredentials({ name: 'x', exec: plugin.exec }).get()).rejects.toThrow(
      /failed: login expired: run `cloud login`$/,
    );
    const missing = new UserCredentials({
      name: 'y',
      exec: { command: join(dir, 'no-such-plugin'), installHint: 'install it with apt' },
    });
    await expect(missing.get()).rejects.toThrow(/no-such-plugin \(user y\) not found: install it with apt/);
  });
});

describe('other auth-providers', () => {
  it('go through client-node’s own KubeConfig (oidc with a valid id-token needs no network)', async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${part({ alg: 'none' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    const creds = new UserCredentials(
      { name: 'o', authProvider: { name: 'oidc', config: { 'id-token': idToken, 'client-id': 'c' } } },
      { cluster: { name: 'c', server: 'https://c.example', skipTLSVerify: false } },
    );
    expect(await bearer(creds)).toBe(`Bearer ${idToken}`);
    // client-node refreshes these itself; a 401 cannot make them any fresher.
    expect(creds.refused(await creds.get())).toBe(false);
  });
});
