// `agent-deploy crds`: print the CRDs, check that crds/ is current, or regenerate it.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { crdFiles, crdsYaml } from '../../api/crd.ts';

const defaultDir = fileURLToPath(new URL('../../../crds/', import.meta.url));

/** Files of `dir` that differ from `expected`, are missing, or are YAML the generator no longer writes. */
export async function staleFiles(dir: string, expected: Map<string, string>): Promise<string[]> {
  const present = (await readdir(dir).catch(() => [] as string[])).filter((f) => /\.ya?ml$/.test(f));
  const stale: string[] = [];
  for (const [name, content] of expected) {
    const actual = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (actual !== content) stale.push(name);
  }
  for (const name of present) if (!expected.has(name)) stale.push(name);
  return stale.sort();
}

export function command(): Command {
  return new Command('crds')
    .description('Print the CustomResourceDefinitions of the API as multi-document YAML.')
    .option('--check', 'exit non-zero when the CRD directory differs from what the schemas generate')
    .option('--write', 'regenerate the CRD directory from the schemas')
    .option('--dir <path>', 'the CRD directory', defaultDir)
    .action(async (opts: { check?: boolean; write?: boolean; dir: string }) => {
      if (opts.check && opts.write) throw new Error('--check and --write exclude each other');
      const shown = relative(process.cwd(), opts.dir) || '.';
      if (opts.check) {
        const stale = await staleFiles(opts.dir, crdFiles());
        if (stale.length > 0) {
          throw new Error(
            `${shown} is out of date with src/api: ${stale.map((f) => join(shown, f)).join(', ')}. ` +
              'Run `agent-deploy crds --write` and commit the result.',
          );
        }
        return;
      }
      if (opts.write) {
        await mkdir(opts.dir, { recursive: true });
        for (const [name, content] of crdFiles()) await writeFile(join(opts.dir, name), content);
        process.stdout.write(`wrote ${[...crdFiles().keys()].map((f) => join(shown, f)).join(', ')}\n`);
        return;
      }
      process.stdout.write(crdsYaml());
    });
}
