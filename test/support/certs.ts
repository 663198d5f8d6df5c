// A throwaway CA, a server certificate for 127.0.0.1 and client certificates, minted with the openssl
// command-line tool (Node can make keys but cannot sign certificates).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pem {
  cert: string;
  key: string;
}

export interface TestCa extends Pem {
  /** Where ca.crt and ca.key are. */
  readonly dir: string;
  /** A certificate signed by this CA; `server` adds the 127.0.0.1 SAN a TLS server needs. */
  issue(commonName: string, options?: { server?: boolean; organization?: string }): Pem;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT')
      throw new Error('these tests need the openssl command (apt-get install openssl)');
    throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString().trim() ?? e.message}`);
  }
}

/** A new CA, or with `dir` the one already there (ca.crt, ca.key), e.g. the test apiserver's client CA. */
export function testCa(dir?: string): TestCa {
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'test-ca-'));
    openssl(
      [
        'req',
        '-x509',
        ...newKey,
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-subj',
        '/CN=test-ca',
        '-days',
        '2',
      ],
      dir,
    );
  }
  const caDir = dir;
  const read = (name: string) => readFileSync(join(caDir, name), 'utf8');
  // Processes sharing one CA directory must not overwrite each other's files.
  let serial = Number.parseInt(randomBytes(3).toString('hex'), 16);
  return {
    dir: caDir,
    cert: read('ca.crt'),
    key: read('ca.key'),
    issue(commonName, { server = false, organization } = {}) {
      const name = `cert-${serial++}`;
      openssl(
        [
          'req',
          ...newKey,
          '-keyout',
          `${name}.key`,
          '-out',
          `${name}.csr`,
          '-subj',
          `${organization ? `/O=${organization}` : ''}/CN=${commonName}`,
        ],
        caDir,
      );
      writeFileSync(
        join(caDir, `${name}.ext`),
        server
          ? 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'
          : 'extendedKeyUsage=clientAuth\n',
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.crt',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(1000 + serial),
          '-days',
          '2',
          '-extfile',
          `${name}.ext`,
          '-out',
          `${name}.crt`,
        ],
        caDir,
      );
      return { cert: read(`${name}.crt`), key: read(`${name}.key`) };
    },
  };
}
