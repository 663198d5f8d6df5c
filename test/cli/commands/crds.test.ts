import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crdFiles, crdsYaml } from '../../../src/api/crd.ts';

const bin = new URL('../../../bin/agent-deploy.js', import.meta.url).pathname;

async function crds(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, 'crds', ...args], {
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('agent-deploy crds', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crds-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints every CRD as multi-document YAML', async () => {
    const { code, stdout } = await crds();
    expect(code).toBe(0);
    expect(stdout).toBe(crdsYaml());
  });

  it('--write regenerates the directory, and --check then passes', async () => {
    expect((await crds('--write', '--dir', dir)).code).toBe(0);
    expect(await readFile(join(dir, 'deployments.yaml'), 'utf8')).toBe(crdFiles().get('deployments.yaml'));
    expect(await crds('--check', '--dir', dir)).toMatchObject({ code: 0, stderr: '' });
  });

  it('--check names each stale, missing or unexpected file and fails', async () => {
    await crds('--write', '--dir', dir);
    await writeFile(join(dir, 'listeners.yaml'), 'edited by hand\n');
    await rm(join(dir, 'oauthtokens.yaml'));
    await writeFile(join(dir, 'widgets.yaml'), 'kind: Widget\n');
    const { code, stderr } = await crds('--check', '--dir', dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /out of date with src\/api: .*listeners\.yaml, .*oauthtokens\.yaml, .*widgets\.yaml\./,
    );
    expect(stderr).toContain('Run `agent-deploy crds --write`');
    expect(stderr).not.toContain('deployments.yaml');
  });

  it('the committed crds/ is current', async () => {
    expect(await crds('--check')).toMatchObject({ code: 0, stderr: '' });
  });
});
