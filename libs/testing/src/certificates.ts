import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throw-away CA and a server certificate it issued, as PEM. */
export interface TestCertificates {
  /** The CA certificate: what the server under test trusts instead of the system roots. */
  readonly ca: string;
  readonly key: string;
  readonly cert: string;
}

/** Names and addresses the server certificate is valid for. */
const SUBJECT_ALT_NAMES = 'DNS:localhost,IP:127.0.0.1,IP:::1';

/**
 * Makes a P-256 CA and a `localhost` / 127.0.0.1 / ::1 server certificate with the `openssl` command line, in a
 * temporary directory removed afterwards. Valid for two days: each test run makes its own.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-certs-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=Portcullis test CA',
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.crt'),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-keyout',
      file('leaf.key'),
      '-out',
      file('leaf.csr'),
    );
    writeFileSync(
      file('leaf.ext'),
      `subjectAltName=${SUBJECT_ALT_NAMES}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      file('leaf.csr'),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      file('leaf.ext'),
      '-out',
      file('leaf.crt'),
    );
    return {
      ca: readFileSync(file('ca.crt'), 'utf8'),
      key: readFileSync(file('leaf.key'), 'utf8'),
      cert: readFileSync(file('leaf.crt'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
