// Reading manifests the way kubectl does: files, directories (recursively: .yaml, .yml, .json) and `-`
// for standard input; multi-document YAML and v1 Lists; our Deployments checked as the CRD would check them.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { apiVersion, kindNames } from '../api/constants.ts';
import { type DeploymentResource, DeploymentSpec } from '../api/deployment.ts';
import type { KubeObject } from '../runtime/kube-objects.ts';

export interface Manifest {
  /** The path it was read from; `-` for standard input. */
  source: string;
  text: string;
}

const manifestExtensions = ['.yaml', '.yml', '.json'];

/** The files of each path in order: a directory's manifests recursively, sorted by path; `-` once. */
export async function readManifests(paths: string[]): Promise<Manifest[]> {
  const out: Manifest[] = [];
  let stdin = false;
  for (const path of paths) {
    if (path === '-') {
      if (stdin) throw new Error('- (standard input) can be given only once');
      stdin = true;
      out.push({ source: '-', text: await readStdin() });
      continue;
    }
    for (const file of filesOf(path)) {
      try {
        out.push({ source: file, text: readFileSync(file, 'utf8') });
      } catch (err) {
        throw new Error(`cannot read ${file}: ${(err as Error).message}`);
      }
    }
  }
  return out;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function filesOf(path: string, seen = new Set<string>()): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (!stat.isDirectory()) return [path];
  const real = realpathSync(path);
  if (seen.has(real)) return [];
  seen.add(real);
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      let isDir: boolean;
      try {
        isDir = statSync(child).isDirectory();
      } catch {
        return []; // a dangling link, or gone while listing
      }
      if (isDir) return filesOf(child, seen);
      return manifestExtensions.some((ext) => name.endsWith(ext)) ? [child] : [];
    });
}

/** The Deployments (ours) of the manifests, each checked as the CRD would; anything else is skipped. */
export function deploymentsIn(manifests: Manifest[]): DeploymentResource[] {
  const out: DeploymentResource[] = [];
  const invalid: string[] = [];
  for (const { source, text } of manifests) {
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [];
    const broken = list.find((d) => d.errors.length > 0);
    if (broken) throw new Error(`${source} is not valid YAML: ${broken.errors[0]!.message.split('\n')[0]}`);
    const objects = list
      .map((d) => d.toJS() as unknown)
      .flatMap((o) => (isList(o) ? o.items : [o]))
      .filter(isOurDeployment);
    for (const doc of objects) {
      const parsed = parseDeployment(doc);
      if ('invalid' in parsed) invalid.push(`${source}: ${parsed.invalid}`);
      else out.push(parsed.cr);
    }
  }
  if (invalid.length > 0) throw new Error(`invalid manifest: ${invalid.join('; ')}`);
  if (out.length === 0) {
    const where = manifests.map((m) => m.source).join(', ') || 'the input (no .yaml, .yml or .json file)';
    throw new Error(`${where} holds no Deployment (${apiVersion})`);
  }
  return out;
}

/** A v1 List, as `kubectl get -o yaml` writes. */
const isList = (o: unknown): o is { items: unknown[] } =>
  typeof o === 'object' &&
  o !== null &&
  (o as KubeObject).kind === 'List' &&
  Array.isArray((o as { items?: unknown }).items);

const isOurDeployment = (o: unknown): o is Record<string, unknown> =>
  typeof o === 'object' &&
  o !== null &&
  (o as KubeObject).apiVersion === apiVersion &&
  (o as KubeObject).kind === kindNames.Deployment.kind;

function parseDeployment(doc: Record<string, unknown>): { cr: DeploymentResource } | { invalid: string } {
  const metadata = (doc.metadata ?? {}) as DeploymentResource['metadata'];
  const namespace = metadata.namespace ?? 'default';
  if (!metadata.name) return { invalid: 'a Deployment has no metadata.name' };
  const spec = DeploymentSpec.safeParse(doc.spec);
  if (!spec.success)
    return {
      invalid: `Deployment ${namespace}/${metadata.name}: ${z.prettifyError(spec.error).replaceAll('\n', '; ')}`,
    };
  return {
    cr: {
      apiVersion,
      kind: 'Deployment',
      metadata: { ...metadata, namespace },
      spec: spec.data,
      ...(doc.status ? { status: doc.status as DeploymentResource['status'] } : {}),
    },
  };
}
