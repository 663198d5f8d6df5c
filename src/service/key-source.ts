// Where the API key comes from, and reading it again when that changes. A Kubernetes Secret mounted as
// a volume is updated by the kubelet through a symlink swap (`api-key → ..data/api-key`, then `..data`
// is repointed to a new directory): the path stays the same, the file behind it is a new one. stat
// follows symlinks, so a changed inode, size or mtime tells that the key may have changed.
//
// The key is kept in private fields only: no property, message or inspection of a source shows it.
import { readFileSync, statSync } from 'node:fs';

/** Where a key was read: said in messages (never the key itself). */
export type KeyOrigin =
  | { kind: 'file'; path: string }
  | { kind: 'env'; name: string }
  | { kind: 'secret'; namespace: string; name: string; key: string }
  | { kind: 'given' };

export interface ApiKeySource {
  readonly origin: KeyOrigin;
  /** The key to send now. A file source checks (stat) at most once per checkMs whether it changed. */
  key(): string;
  /** Reads the key again now, e.g. after the service rejected it. Returns whether it changed. */
  reload(): boolean;
}

/** `file /etc/agent-deploy/credentials/api-key`, `environment variable AGENT_DEPLOY_API_KEY`. */
export function describeOrigin(origin: KeyOrigin): string {
  if (origin.kind === 'file') return `file ${origin.path}`;
  if (origin.kind === 'env') return `environment variable ${origin.name}`;
  if (origin.kind === 'secret') return `key ${origin.key} of Secret ${origin.namespace}/${origin.name}`;
  return 'the configured key';
}

/** A key that never changes: a literal, or one read from the environment at start. */
export function fixedKey(value: string, origin: KeyOrigin = { kind: 'given' }): ApiKeySource {
  return new FixedKeySource(value, origin);
}

class FixedKeySource implements ApiKeySource {
  readonly origin: KeyOrigin;
  readonly #key: string;
  constructor(value: string, origin: KeyOrigin) {
    this.#key = value;
    this.origin = origin;
  }
  key(): string {
    return this.#key;
  }
  reload(): boolean {
    return false;
  }
}

export interface FileKeyOptions {
  /** At most one stat per this many milliseconds (default 1000): key() is called before every request. */
  checkMs?: number;
  now?: () => number;
}

/** stat fields that change when the kubelet swaps the file or someone rewrites it. */
const fingerprint = (path: string) => {
  const s = statSync(path);
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
};

/**
 * The key in a file, trimmed. The first read must succeed (a missing file at start is a configuration
 * error); later, a file that cannot be read (mid-rewrite, briefly absent) leaves the last key in use and
 * is tried again on the next check.
 */
export class FileKeySource implements ApiKeySource {
  readonly origin: KeyOrigin;
  readonly #path: string;
  readonly #checkMs: number;
  readonly #now: () => number;
  #key: string;
  #fingerprint: string;
  #checkedAt: number;
  #readError: string | undefined;

  constructor(path: string, options: FileKeyOptions = {}) {
    this.#path = path;
    this.origin = { kind: 'file', path };
    this.#checkMs = options.checkMs ?? 1000;
    this.#now = options.now ?? Date.now;
    try {
      this.#fingerprint = fingerprint(path);
      this.#key = readFileSync(path, 'utf8').trim();
    } catch (err) {
      throw new Error(`cannot read the API key file ${path}: ${(err as Error).message}`);
    }
    this.#checkedAt = this.#now();
  }

  /** Why the last attempt to read the file failed, if it did (the previous key is still in use). */
  get readError(): string | undefined {
    return this.#readError;
  }

  key(): string {
    if (this.#now() - this.#checkedAt >= this.#checkMs) this.#refresh(false);
    return this.#key;
  }

  reload(): boolean {
    return this.#refresh(true);
  }

  #refresh(force: boolean): boolean {
    this.#checkedAt = this.#now();
    try {
      const seen = fingerprint(this.#path);
      if (!force && seen === this.#fingerprint) return false;
      const key = readFileSync(this.#path, 'utf8').trim();
      this.#fingerprint = seen;
      this.#readError = undefined;
      const changed = key !== this.#key;
      this.#key = key;
      return changed;
    } catch (err) {
      this.#readError = (err as Error).message;
      return false;
    }
  }
}
