// Where the API key is read: a file read again when it changes (as the kubelet swaps a mounted Secret)
// or when asked to, an environment variable read once; the key never shows in the source itself.
import { mkdtempSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiKeySource } from '../../src/cli/service-options.ts';
import { describeOrigin, FileKeySource } from '../../src/service/key-source.ts';
import { secretVolume } from '../support/secret-volume.ts';

describe('a key file', () => {
  it('is read at start, trimmed, and a missing one fails naming the path', () => {
    const volume = secretVolume('key-one');
    expect(new FileKeySource(volume.path).key()).toBe('key-one');
    const missing = join(volume.dir, 'nothing-here');
    expect(() => new FileKeySource(missing)).toThrow(`cannot read the API key file ${missing}: ENOENT`);
  });

  it('sees a kubelet-style swap on the first check after checkMs, not before', () => {
    const volume = secretVolume('key-one');
    let now = 0;
    const source = new FileKeySource(volume.path, { checkMs: 1000, now: () => now });
    volume.swap('key-two');
    now = 999;
    expect(source.key()).toBe('key-one'); // no stat yet: key() runs before every request
    now = 1000;
    expect(source.key()).toBe('key-two');
  });

  it('sees a file rewritten in place, and reload() reads it at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-key-'));
    const path = join(dir, 'key');
    writeFileSync(path, 'key-one');
    const source = new FileKeySource(path, { checkMs: 60_000 });
    writeFileSync(path, 'key-two-longer');
    expect(source.key()).toBe('key-one');
    expect(source.reload()).toBe(true);
    expect(source.key()).toBe('key-two-longer');
    expect(source.reload()).toBe(false); // the same key again is no change
  });

  it('keeps the last key while the file cannot be read, and says why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-key-'));
    const path = join(dir, 'key');
    writeFileSync(path, 'key-one');
    const source = new FileKeySource(path, { checkMs: 0 });
    unlinkSync(path);
    expect(source.key()).toBe('key-one');
    expect(source.reload()).toBe(false);
    expect(source.readError).toContain('ENOENT');
    writeFileSync(path, 'key-two');
    expect(source.key()).toBe('key-two');
    expect(source.readError).toBeUndefined();
  });

  it('never shows the key', () => {
    const volume = secretVolume('canary-5d1c-key');
    const source = new FileKeySource(volume.path);
    expect(source.key()).toBe('canary-5d1c-key');
    for (const text of [inspect(source, { showHidden: true, depth: 5 }), JSON.stringify(source)])
      expect(text).not.toContain('canary-5d1c-key');
    expect(describeOrigin(source.origin)).toBe(`file ${volume.path}`);
  });
});

describe('apiKeySource', () => {
  it('prefers --api-key-file, else reads AGENT_DEPLOY_API_KEY once, else asks for a key', () => {
    const volume = secretVolume('from-file');
    const env = { AGENT_DEPLOY_API_KEY: 'from-env' };
    const file = apiKeySource({ apiKeyFile: volume.path }, env);
    expect([file.key(), file.origin]).toEqual(['from-file', { kind: 'file', path: volume.path }]);

    const fromEnv = apiKeySource({}, env);
    expect(fromEnv.key()).toBe('from-env');
    env.AGENT_DEPLOY_API_KEY = 'changed';
    expect([fromEnv.key(), fromEnv.reload()]).toEqual(['from-env', false]);
    expect(describeOrigin(fromEnv.origin)).toBe('environment variable AGENT_DEPLOY_API_KEY');

    expect(() => apiKeySource({}, {})).toThrow('no API key: pass --api-key-file or set AGENT_DEPLOY_API_KEY');
  });
});
