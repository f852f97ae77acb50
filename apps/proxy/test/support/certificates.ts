// A throw-away CA and a localhost server certificate, made with the `openssl` command line, so a client ID
// metadata document can be served over https on loopback and the proxy can be told to trust it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** The CA certificate: what the proxy trusts instead of the system roots. */
  readonly ca: string;
  readonly key: string;
  readonly cert: string;
}

/** A P-256 CA and a `localhost` / 127.0.0.1 certificate it issued, valid for two days. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-proxy-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-days',
      '2',
      '-subj',
      '/CN=Portcullis proxy test CA',
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.crt'),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    );
    openssl('req', ...ec, '-subj', '/CN=localhost', '-keyout', file('leaf.key'), '-out', file('leaf.csr'));
    writeFileSync(
      file('leaf.ext'),
      'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
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
