// Choosing the line that says why a revision failed, from the emulator's logs and from other shapes of
// build log; redaction of secret values; and the one read per failure, against the emulator.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FailureLogs,
  failureLine,
  failureMessage,
  type ReadLogs,
  redact,
  tailLength,
} from '../../../src/controllers/deployment/failure-logs.ts';
import { defaultSeedKeys } from '../../../src/emulator/seed.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/server.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import type { LogEntry } from '../../../src/service/wire.ts';

const entry = (level: string, message: string, i = 0): LogEntry => ({ level, message, timestamp: i });
const log = (...lines: [string, string][]) => lines.map(([level, message], i) => entry(level, message, i));

describe('failureLine', () => {
  it('takes the last telling error line and the step announced before it', () => {
    const lines = log(
      ['info', 'Step 2/5 : ADD . /deps/agent'],
      ['info', 'Step 3/5 : RUN pip install -r requirements.txt'],
      ['error', 'ERROR: No matching distribution found for foo==9.9'],
      ['error', "The command '/bin/sh -c pip install -r requirements.txt' returned a non-zero code: 1"],
      ['error', 'Build failed: exit code 1'],
    );
    expect(failureLine(lines, [])).toEqual({
      step: 'pip install -r requirements.txt',
      line: 'ERROR: No matching distribution found for foo==9.9',
    });
  });

  it('reads BuildKit steps, error text at another level, and falls back to a generic line', () => {
    const buildkit = log(
      ['info', '#7 [3/4] RUN npm ci'],
      ['info', 'npm ERR! code E404'],
      ['info', 'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully'],
    );
    expect(failureLine(buildkit, [])).toEqual({
      step: 'npm ci',
      line: 'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully',
    });
    expect(failureLine(log(['error', 'Container exited with code 137']), [])).toEqual({
      line: 'Container exited with code 137',
    });
    expect(failureLine(log(['info', 'all good'], ['warning', 'slow']), [])).toBeUndefined();
  });

  it('redacts secret values (longest first) before it cuts the line to one short line', () => {
    const secret = 'sk-canary-0123456789';
    const long = `ERROR: token ${secret} refused\n${'x'.repeat(400)}`;
    const found = failureLine(log(['error', long]), ['sk-canary', secret, ''])!;
    expect(found.line).not.toContain('sk-canary');
    expect(found.line.startsWith('ERROR: token [redacted] refused x')).toBe(true);
    expect(found.line.length).toBeLessThanOrEqual(200);
    expect(found.line.endsWith('…')).toBe(true);
    expect(redact('a-b-a', ['a', ''])).toBe('[redacted]-b-[redacted]');
  });

  it('words the message with the step, or with the status when no step was announced', () => {
    const rev = { id: 'r1', status: 'DEPLOY_FAILED' };
    expect(failureMessage(rev, { step: 'serve', line: 'boom' })).toBe('revision r1 failed at "serve": boom');
    expect(failureMessage(rev, { line: 'boom' })).toBe('revision r1 is DEPLOY_FAILED: boom');
  });
});

describe('FailureLogs against the emulator', () => {
  let emu: RunningEmulator;
  let client: ServiceClient;
  const calls: string[] = [];
  const controller = new AbortController();

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, stepMs: 0 });
    client = new ServiceClient({ baseUrl: emu.url, apiKey: defaultSeedKeys.dev });
  });
  beforeEach(() => {
    calls.length = 0;
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  const logs = () => new FailureLogs();
  const read: ReadLogs = (target, body, options) => {
    calls.push(`${target.kind} ${body.order} ${body.limit}`);
    return client.readLogs(target, body, options);
  };
  const failing = async (name: string, image: string) => {
    const d = await client.createDeployment({
      name,
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: image },
      secrets: [],
    });
    return { deploymentId: d.id, revision: { id: d.latest_revision_id!, status: '' } };
  };

  it('reads the tail once per failure, keeps a message already told, and forgets', async () => {
    const built = await failing('fl-build', 'agent:fail-build');
    const failed = { ...built, revision: { ...built.revision, status: 'BUILD_FAILED' } };
    const fl = logs();
    const message = await fl.messageFor('ns/a', failed, undefined, [], read, controller.signal);
    expect(message).toBe(
      `revision ${failed.revision.id} failed at "pip install -r requirements.txt": ERROR: No matching distribution found for foo==9.9`,
    );
    expect(await fl.messageFor('ns/a', failed, undefined, [], read, controller.signal)).toBe(message);
    expect(calls).toEqual([`build desc ${tailLength}`]);
    // A message the resource already shows for this revision (an earlier process) is kept, not read again.
    expect(await fl.messageFor('ns/b', failed, message, [], read, controller.signal)).toBe(message);
    expect(calls).toHaveLength(1);
    fl.forget('ns/a');
    await fl.messageFor('ns/a', failed, undefined, [], read, controller.signal);
    expect(calls).toHaveLength(2);

    const crashed = await failing('fl-deploy', 'agent:fail-deploy');
    const deployFailed = { ...crashed, revision: { ...crashed.revision, status: 'DEPLOY_FAILED' } };
    expect(
      await fl.messageFor('ns/c', deployFailed, undefined, ['agent_tools'], read, controller.signal),
    ).toBe(
      `revision ${crashed.revision.id} failed at "langgraph-api serve --port 8000": ImportError: cannot load graph 'agent' from agent:fail-deploy: No module named '[redacted]'`,
    );
  });

  it('gives no message for a log it cannot read, and does not read it again', async () => {
    const built = await failing('fl-gone', 'agent:fail-build');
    const failed = {
      ...built,
      revision: { id: '00000000-0000-4000-8000-000000000000', status: 'BUILD_FAILED' },
    };
    const fl = logs();
    expect(await fl.messageFor('ns/x', failed, undefined, [], read, controller.signal)).toBeUndefined();
    expect(await fl.messageFor('ns/x', failed, undefined, [], read, controller.signal)).toBeUndefined();
    expect(calls).toHaveLength(1);
  });
});
