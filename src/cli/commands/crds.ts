// `agent-deploy crds`: print the CRDs, check that crds/ (and the install manifests generated with it:
// the chart's CRDs, the RBAC of deploy/ and of the chart) is current, or regenerate it.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { crdFiles, crdsYaml } from '../../api/crd.ts';
import { type GeneratedDir, installFiles } from '../../api/install.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const defaultDir = join(root, 'crds/');

/**
 * Files of `dir` that differ from `expected`, are missing, or (when the generator owns the directory)
 * are YAML it no longer writes.
 */
export async function staleFiles(
  dir: string,
  expected: Map<string, string>,
  owned = true,
): Promise<string[]> {
  const present = (await readdir(dir).catch(() => [] as string[])).filter((f) => /\.ya?ml$/.test(f));
  const stale: string[] = [];
  for (const [name, content] of expected) {
    const actual = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (actual !== content) stale.push(name);
  }
  if (owned) for (const name of present) if (!expected.has(name)) stale.push(name);
  return stale.sort();
}

/** The CRD directory, and with the default one the install manifests generated alongside. */
function targets(dir: string): GeneratedDir[] {
  const crds = { dir, files: crdFiles(), owned: true };
  if (relative(defaultDir, dir) !== '') return [crds];
  return [crds, ...installFiles().map((t) => ({ ...t, dir: join(root, t.dir) }))];
}

export function command(): Command {
  return new Command('crds')
    .description('Print the CustomResourceDefinitions of the API as multi-document YAML.')
    .option(
      '--check',
      "exit non-zero when the CRD directory (and, for crds/, the chart's CRDs and the RBAC of deploy/ and the chart) differs from what the schemas generate",
    )
    .option(
      '--write',
      'regenerate the CRD directory (and, for crds/, the files --check compares) from the schemas',
    )
    .option('--dir <path>', 'the CRD directory', defaultDir)
    .action(async (opts: { check?: boolean; write?: boolean; dir: string }) => {
      if (opts.check && opts.write) throw new Error('--check and --write exclude each other');
      const shown = (path: string) => relative(process.cwd(), path) || '.';
      if (opts.check) {
        const stale: string[] = [];
        for (const t of targets(opts.dir))
          for (const f of await staleFiles(t.dir, t.files, t.owned)) stale.push(shown(join(t.dir, f)));
        if (stale.length > 0) {
          throw new Error(
            `Generated files are out of date with src/api: ${stale.join(', ')}. ` +
              'Run `agent-deploy crds --write` and commit the result.',
          );
        }
        return;
      }
      if (opts.write) {
        const written: string[] = [];
        for (const t of targets(opts.dir)) {
          await mkdir(t.dir, { recursive: true });
          for (const [name, content] of t.files) {
            await writeFile(join(t.dir, name), content);
            written.push(shown(join(t.dir, name)));
          }
        }
        process.stdout.write(`wrote ${written.join(', ')}\n`);
        return;
      }
      process.stdout.write(crdsYaml());
    });
}
