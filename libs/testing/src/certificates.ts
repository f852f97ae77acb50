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

/** Names and addresses the server certificate is always valid for. */
const SUBJECT_ALT_NAMES = 'DNS:localhost,IP:127.0.0.1,IP:::1';

/** What else the server certificate names. */
export interface TestCertificateOptions {
  /**
   * More DNS names (`claude.ai`, `chatgpt.com`): a test that maps a real host to a loopback server presents a
   * certificate for it, so TLS is verified as the server under test would verify the real one.
   */
  readonly hosts?: readonly string[];
}

/**
 * Makes a P-256 CA and a `localhost` / 127.0.0.1 / ::1 server certificate (and `hosts`) with the `openssl` command
 * line, in a temporary directory removed afterwards. Valid for two days: each test run makes its own.
 */
export function makeTestCertificates(options: TestCertificateOptions = {}): TestCertificates {
  const hosts = options.hosts ?? [];
  for (const host of hosts) {
    if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/u.test(host)) throw new TypeError(`not a DNS name: ${host}`);
  }
  const subjectAltNames = [SUBJECT_ALT_NAMES, ...hosts.map((host) => `DNS:${host}`)].join(',');
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
      `subjectAltName=${subjectAltNames}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
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
