// The real helm that test/charts/helm/build.sh builds (`.ci/run` builds it when missing), and the
// chart's rendered objects, compared with deploy/'s in substance.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const root = new URL('../../', import.meta.url).pathname;
export const chartDir = join(root, 'charts/agent-deploy-operator');
export const deployDir = join(root, 'deploy');
export const helmVersion = readFileSync(new URL('helm/helm-version', import.meta.url), 'utf8').trim();

export function helmPath(): string {
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  const dir = process.env.AGENT_DEPLOY_HELM_DIR ?? join(cache, 'agent-deploy/helm', helmVersion);
  const bin = join(dir, 'bin/helm');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run bash test/charts/helm/build.sh`);
  return bin;
}

/** Runs helm; rejects with its stderr. */
export async function helm(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(helmPath(), args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr?.trim() || e.message);
  }
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

/** YAML as the apiserver reads it: YAML 1.1, where `defaultMode: 0440` is octal. */
export function parseObjects(yaml: string): K8sObject[] {
  return parseAllDocuments(yaml, { version: '1.1' })
    .map((d) => d.toJSON() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
}

export const release = 'agent-deploy-operator';
export const system = 'agent-deploy-system';

/** `helm template` of the chart, as release agent-deploy-operator in agent-deploy-system unless told otherwise. */
export async function renderChart(
  options: {
    values?: object;
    sets?: string[];
    includeCrds?: boolean;
    namespace?: string;
    release?: string;
  } = {},
): Promise<K8sObject[]> {
  const args = ['template', options.release ?? release, chartDir, '--namespace', options.namespace ?? system];
  if (options.includeCrds) args.push('--include-crds');
  for (const set of options.sets ?? []) args.push('--set', set);
  if (options.values) args.push('--values', '-');
  const run = promisify(execFile)(helmPath(), args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (options.values) run.child.stdin?.end(JSON.stringify(options.values));
  try {
    return parseObjects((await run).stdout);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr?.trim() || e.message);
  }
}

/** Labels and annotations that only say who rendered an object (Helm, kustomize's hashes): not substance. */
const bookkeepingLabels = [
  'helm.sh/chart',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
  'app.kubernetes.io/managed-by',
];
const bookkeepingAnnotations = ['checksum/config'];
/** Where labels are: an object's, a label selector's, a Service's selector. */
const labelMaps = ['labels', 'matchLabels', 'selector'];

/**
 * The objects with bookkeeping removed: Helm's labels (wherever labels are, selectors included), the
 * chart's config checksum, and kustomize's name hash of generated ConfigMaps.
 */
export function substance(objects: K8sObject[]): K8sObject[] {
  const hashed = new Map<string, string>();
  for (const o of objects) {
    const m = /^(.*)-[a-z0-9]{10}$/.exec(o.metadata.name);
    if (o.kind === 'ConfigMap' && m) hashed.set(o.metadata.name, m[1]!);
  }
  const strip = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') return hashed.get(value) ?? value;
    if (Array.isArray(value)) return value.map((v) => strip(v));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (labelMaps.includes(key ?? '') && bookkeepingLabels.includes(k)) continue;
      if (key === 'annotations' && bookkeepingAnnotations.includes(k)) continue;
      out[k] = strip(v, k);
    }
    if (key === 'annotations' && Object.keys(out).length === 0) return undefined;
    return out;
  };
  return objects.map((o) => JSON.parse(JSON.stringify(strip(o))) as K8sObject);
}

export const objectKey = (o: K8sObject) =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
