// The image cannot be built here (no container engine), so this test does what its build does:
// it reads the Dockerfile, runs the build stage's install and build in a scratch directory holding only
// what the Dockerfile copies, lays out the final stage's files, and runs the CLI with Node 24 from there.
// That proves the built JavaScript and the production dependencies alone run the operator.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const node24 = join(root, 'node_modules/.bin/node');

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions per stage: continuation lines joined, comments dropped. */
function parseDockerfile(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

const all = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword);
/** `COPY a b dest` from the build context (not --from): the sources. */
const contextSources = (stage: Instruction[]) =>
  all(stage, 'COPY')
    .filter((i) => !i.args.startsWith('--from'))
    .flatMap((i) => i.args.split(' ').slice(0, -1));

const stages = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const [build, final] = [stages[0]!, stages.at(-1)!];
const scratch = mkdtempSync(join(tmpdir(), 'agent-deploy-image-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('Dockerfile', () => {
  it('builds in one stage and runs non-root from a Node 24 image in another', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(all(build, 'FROM')[0]!.args).toMatch(/^node:24(\.[\d.]+)?-slim AS build$/);
    expect(all(final, 'FROM')[0]!.args).toMatch(/^node:24(\.[\d.]+)?-slim$/);
    expect(
      all(build, 'RUN')
        .map((i) => i.args)
        .join(' '),
    ).toMatch(/npm ci .*&& npx tsc -p tsconfig\.build\.json && npm prune --omit=dev/);
    expect(all(final, 'USER').at(-1)?.args).toBe('65532:65532');
    expect(JSON.parse(all(final, 'ENTRYPOINT').at(-1)!.args)).toEqual([
      'node',
      'dist/cli/main.js',
      'operator',
    ]);
    expect(all(final, 'COPY').map((i) => i.args)).toEqual(
      expect.arrayContaining([
        '--from=build /app/node_modules ./node_modules',
        '--from=build /app/dist ./dist',
      ]),
    );
    // The final stage installs nothing: its only RUN removes the package managers.
    for (const { args } of all(final, 'RUN')) expect(args).toMatch(/^rm -rf /);
    // No TypeScript in the image: the sources stay in the build stage.
    expect(new Set(contextSources(final))).toEqual(new Set(['package.json', 'package-lock.json', 'crds']));
  });

  it("labels the image with the OCI annotations, the version being package.json's", () => {
    const labels = new Map<string, string>();
    for (const { args } of all(final, 'LABEL')) {
      for (const [, key = '', value = ''] of args.matchAll(/([\w.-]+)="([^"]*)"/g)) labels.set(key, value);
    }
    const { version, license } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      version: string;
      license: string;
    };
    expect(Object.fromEntries(labels)).toMatchObject({
      'org.opencontainers.image.title': 'agent-deploy-operator',
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.licenses': license,
    });
    // Filled in by the build's --build-arg, empty without.
    expect(labels.get('org.opencontainers.image.revision')).toMatch(/^\$\{REVISION\}$/);
    expect(labels.get('org.opencontainers.image.created')).toMatch(/^\$\{CREATED\}$/);
    expect(labels.get('org.opencontainers.image.base.name')).toMatch(/^docker\.io\/library\/node:24/);
    expect(labels.get('org.opencontainers.image.description')).toBeTruthy();
  });

  it('runs the CLI and loads the operator with the production dependencies only', async () => {
    for (const source of contextSources(build))
      cpSync(join(root, source), join(scratch, source), { recursive: true });
    for (const { args } of all(build, 'RUN')) {
      // As in the image, plus: take packages from the local cache when it has them.
      await run('sh', ['-c', args.replace('npm ci', 'npm ci --prefer-offline')], { cwd: scratch });
    }
    // The final stage: its context sources; node_modules and dist are the build stage's, already here.
    rmSync(join(scratch, 'src'), { recursive: true });
    for (const source of contextSources(final)) {
      cpSync(join(root, source), join(scratch, source), { recursive: true });
    }
    for (const dev of ['vitest', 'typescript', '@biomejs/biome', 'node']) {
      expect(existsSync(join(scratch, 'node_modules', dev)), dev).toBe(false);
    }
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const env = { PATH: '/usr/bin:/bin', HOME: scratch };
    const cli = (...args: string[]) => run(node24, ['dist/cli/main.js', ...args], { cwd: scratch, env });
    expect((await cli('--version')).stdout.trim()).toBe(version);
    // The entrypoint's subcommand, loaded for real: every module it imports resolves.
    expect((await cli('operator', '--help')).stdout).toContain('--leader-elect');
    const imported = await run(
      node24,
      [
        '--input-type=module',
        '-e',
        "const m = await import('./dist/cli/commands/operator.js'); console.log(typeof m.command)",
      ],
      { cwd: scratch, env },
    );
    expect(imported.stdout.trim()).toBe('function');
  }, 90_000);
});
