import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultLeaseNamespace, leaderIdentity } from '../../../src/cli/commands/operator.ts';

const dir = mkdtempSync(join(tmpdir(), 'operator-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('leader election defaults', () => {
  it("puts the Lease in the pod's own namespace, else in default", () => {
    const file = join(dir, 'namespace');
    writeFileSync(file, 'agent-deploy-system\n');
    expect(defaultLeaseNamespace(file)).toBe('agent-deploy-system');
    writeFileSync(file, '');
    expect(defaultLeaseNamespace(file)).toBe('default');
    expect(defaultLeaseNamespace(join(dir, 'absent'))).toBe('default');
  });

  it('identifies the holder by pod name, else by host name with a suffix unique per process', () => {
    expect(leaderIdentity({ POD_NAME: 'agent-deploy-operator-7d9f-abcde' })).toBe(
      'agent-deploy-operator-7d9f-abcde',
    );
    const a = leaderIdentity({});
    const b = leaderIdentity({});
    expect(a).toMatch(new RegExp(`^${hostname()}_[0-9a-f]{8}$`));
    expect(a).not.toBe(b);
  });
});
