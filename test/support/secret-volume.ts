// A directory laid out as the kubelet lays out a Secret volume: `api-key → ..data/api-key`, `..data →
// ..<version>`. swap() writes a new version directory and repoints `..data` atomically (a new symlink
// renamed over the old one), the way the kubelet updates a mounted Secret.
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SecretVolume {
  dir: string;
  /** The path a process is given: `<dir>/api-key`. */
  path: string;
  swap(value: string): void;
}

export function secretVolume(initial: string): SecretVolume {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-key-'));
  let n = 0;
  const swap = (value: string) => {
    const version = `..${Date.now()}_${n++}`;
    mkdirSync(join(dir, version));
    writeFileSync(join(dir, version, 'api-key'), `${value}\n`);
    symlinkSync(version, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  };
  swap(initial);
  symlinkSync(join('..data', 'api-key'), join(dir, 'api-key'));
  return { dir, path: join(dir, 'api-key'), swap };
}
