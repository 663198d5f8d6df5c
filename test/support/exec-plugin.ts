// A kubectl exec credential plugin for tests, as a small shell script: it prints an ExecCredential
// with the token found in a file (so a test rotates the token by rewriting the file), an optional
// expirationTimestamp some seconds ahead, and records each run and the KUBERNETES_EXEC_INFO it got.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = `#!/bin/sh
set -eu
echo run >> "$PLUGIN_DIR/runs"
printf '%s' "\${KUBERNETES_EXEC_INFO:-}" > "$PLUGIN_DIR/exec-info"
if [ -f "$PLUGIN_DIR/fail" ]; then cat "$PLUGIN_DIR/fail" >&2; exit 1; fi
if [ -f "$PLUGIN_DIR/credential.json" ]; then cat "$PLUGIN_DIR/credential.json"; exit 0; fi
expiry=""
if [ -n "\${EXPIRES_IN:-}" ]; then
  expiry=$(printf ',"expirationTimestamp":"%s"' "$(date -u -d "@$(( $(date +%s) + EXPIRES_IN ))" +%Y-%m-%dT%H:%M:%SZ)")
fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"%s}}' "$(cat "$PLUGIN_DIR/token")" "$expiry"
`;

export interface ExecPlugin {
  /** The kubeconfig `exec` stanza that runs this plugin. */
  readonly exec: Record<string, unknown>;
  setToken(token: string): void;
  /** Replaces the plugin's output with this ExecCredential (e.g. one with a client certificate). */
  setCredential(credential: object): void;
  /** Replaces the plugin's output with any text; `undefined` goes back to printing the token. */
  setOutput(text: string | undefined): void;
  /** Makes the plugin fail, printing `stderr`. */
  fail(stderr: string): void;
  runs(): number;
  execInfo(): string;
}

export function execPlugin(options: { token?: string; expiresInSeconds?: number } = {}): ExecPlugin {
  const dir = mkdtempSync(join(tmpdir(), 'exec-plugin-'));
  const command = join(dir, 'plugin.sh');
  writeFileSync(command, script);
  chmodSync(command, 0o755);
  writeFileSync(join(dir, 'token'), options.token ?? '');
  const env = [{ name: 'PLUGIN_DIR', value: dir }];
  if (options.expiresInSeconds !== undefined)
    env.push({ name: 'EXPIRES_IN', value: String(options.expiresInSeconds) });
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  return {
    exec: { apiVersion: 'client.authentication.k8s.io/v1', command, env, interactiveMode: 'Never' },
    setToken: (token) => writeFileSync(join(dir, 'token'), token),
    setCredential: (credential) => writeFileSync(join(dir, 'credential.json'), JSON.stringify(credential)),
    setOutput: (text) =>
      text === undefined
        ? rmSync(join(dir, 'credential.json'), { force: true })
        : writeFileSync(join(dir, 'credential.json'), text),
    fail: (stderr) => writeFileSync(join(dir, 'fail'), stderr),
    runs: () => read('runs').split('\n').filter(Boolean).length,
    execInfo: () => read('exec-info'),
  };
}
