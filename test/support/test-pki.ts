/**
 * Certificates made for a test with the system's `openssl`: a CA, and leaf certificates it signs
 * for a server (127.0.0.1 and localhost) or a client (`clientAuth`). EC P-256 keys: quick to make.
 * Nothing is kept after the test: each lives in a temporary directory removed by `dispose`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PEM (unencrypted PKCS#8). */
  key: string;
}

export class TestPki {
  private readonly dir = mkdtempSync(join(tmpdir(), 'gridwire-pki-'));
  private serial = 0;

  /** A self-signed CA certificate named `name`. */
  ca(name: string, days = 30): KeyPair {
    const base = this.next();
    openssl([
      'req',
      '-x509',
      ...newKey(base),
      '-out',
      `${base}.crt`,
      '-subj',
      `/CN=${name}`,
      '-days',
      String(days),
    ]);
    return this.read(base);
  }

  /** A certificate for `name` signed by `issuer`: a server's (127.0.0.1, localhost) or a client's. */
  leaf(issuer: KeyPair, name: string, use: 'server' | 'client', days = 30): KeyPair {
    const base = this.next();
    writeFileSync(`${base}.issuer.crt`, issuer.cert);
    writeFileSync(`${base}.issuer.key`, issuer.key);
    writeFileSync(
      `${base}.ext`,
      use === 'server'
        ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'
        : 'extendedKeyUsage=clientAuth\n',
    );
    openssl(['req', ...newKey(base), '-out', `${base}.csr`, '-subj', `/CN=${name}`]);
    openssl([
      'x509',
      '-req',
      '-in',
      `${base}.csr`,
      '-CA',
      `${base}.issuer.crt`,
      '-CAkey',
      `${base}.issuer.key`,
      '-set_serial',
      String(1000 + this.serial),
      '-out',
      `${base}.crt`,
      '-days',
      String(days),
      '-extfile',
      `${base}.ext`,
    ]);
    return this.read(base);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private next(): string {
    this.serial += 1;
    return join(this.dir, `c${this.serial}`);
  }

  private read(base: string): KeyPair {
    return { cert: readFileSync(`${base}.crt`, 'utf8'), key: readFileSync(`${base}.key`, 'utf8') };
  }
}

/** `openssl req` arguments making a new unencrypted P-256 key, written to `<base>.key`. */
const newKey = (base: string): string[] => [
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:P-256',
  '-nodes',
  '-keyout',
  `${base}.key`,
];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}
