/**
 * The rules of a webhook's own TLS settings, on certificates made here with openssl: the summary
 * shown, the health warning from 30 days before a client certificate expires (and once it has),
 * the days the metric records, the options connections are made with (its CAs beside the public
 * ones or instead of them, one pool per distinct setting), and the refusals naming what is wrong.
 */
import {
  CERTIFICATE_WARNING_DAYS,
  certificateSummary,
  certificateWarning,
  DAY_MS,
  daysLeftToWarn,
  endpointTlsOptionsOf,
  expiryOf,
  leafOf,
  parseCertificates,
  parsePrivateKey,
  validityProblem,
} from '../../../../shared/delivery/rules/endpoint-tls';
import { TestPki } from '../../../support/test-pki';

const pki = new TestPki();
const ca = pki.ca('Rules CA');
const client = pki.leaf(ca, 'rules-client', 'client', 60);
afterAll(() => pki.dispose());

const expiresAt = expiryOf(leafOf(client.cert)).getTime();

describe('summaries and checks', () => {
  it('summarizes a certificate by fingerprint, names and validity', () => {
    const summary = certificateSummary(leafOf(client.cert));
    expect(summary).toMatchObject({ subject: 'CN=rules-client', issuer: 'CN=Rules CA' });
    expect(summary.sha256Fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(Date.parse(summary.expiresTime)).toBe(expiresAt);
  });

  it('reads a chain in order and names a block that does not parse', () => {
    const chain = parseCertificates(`${client.cert}${ca.cert}`);
    expect('certificates' in chain && chain.certificates.map((c) => c.subject)).toEqual([
      'CN=rules-client',
      'CN=Rules CA',
    ]);
    const broken = `${client.cert}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`;
    expect(parseCertificates(broken)).toEqual({
      problem: expect.stringMatching(/^certificate 2 of 2 does not parse/),
    });
  });

  it('refuses an encrypted key and accepts an unencrypted one', () => {
    expect('key' in parsePrivateKey(client.key)).toBe(true);
    const encrypted = '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n';
    expect(parsePrivateKey(encrypted)).toEqual({ problem: expect.stringMatching(/^is encrypted/) });
  });

  it('says a certificate is expired once its time is past, and not yet valid before it starts', () => {
    const leaf = leafOf(client.cert);
    expect(validityProblem(leaf, expiresAt - 1)).toBeUndefined();
    expect(validityProblem(leaf, expiresAt)).toMatch(/^expired on .* \(CN=rules-client\)$/);
    expect(validityProblem(leaf, Date.parse(leaf.validFrom) - 1000)).toMatch(/^is not valid before/);
  });
});

describe('expiry warnings', () => {
  const tls = { clientCertificate: client.cert, sealedClientKey: 'sealed' };

  it.each([
    [CERTIFICATE_WARNING_DAYS * DAY_MS + 1, undefined, undefined],
    [CERTIFICATE_WARNING_DAYS * DAY_MS, 'ClientCertificateExpiring', 30],
    [DAY_MS - 1, 'ClientCertificateExpiring', 0],
    [0, 'ClientCertificateExpired', 0],
    [-2 * DAY_MS, 'ClientCertificateExpired', -2],
  ])('%i ms before the end: %s, %s days', (before, code, days) => {
    const now = expiresAt - before;
    expect(certificateWarning(tls, now)?.code).toBe(code);
    expect(certificateWarning(tls, now)?.daysLeft).toBe(days);
    expect(daysLeftToWarn(expiresAt, now)).toBe(days);
  });

  it('warns of nothing without a client certificate', () => {
    expect(certificateWarning({ caCertificates: ca.cert }, expiresAt)).toBeUndefined();
    expect(certificateWarning(undefined, expiresAt)).toBeUndefined();
  });
});

describe('connection options', () => {
  const publicCas = ['PUBLIC-1', 'PUBLIC-2'];

  it('adds its own CAs to the public ones, or uses them alone', () => {
    expect(endpointTlsOptionsOf({ caCertificates: ca.cert }, undefined, publicCas)?.ca).toEqual([
      ...publicCas,
      ca.cert,
    ]);
    expect(
      endpointTlsOptionsOf({ caCertificates: ca.cert, trustPublicCas: false }, undefined, publicCas)?.ca,
    ).toEqual([ca.cert]);
  });

  it('presents the client certificate with its opened key, and keeps the public CAs as they are', () => {
    const options = endpointTlsOptionsOf(
      { clientCertificate: client.cert, sealedClientKey: 's' },
      client.key,
      publicCas,
    );
    expect(options).toMatchObject({ cert: client.cert, key: client.key, certificateExpiresAt: expiresAt });
    expect(options?.ca).toBeUndefined();
  });

  it('gives equal settings one pool and changed settings another', () => {
    const a = endpointTlsOptionsOf(
      { clientCertificate: client.cert, sealedClientKey: 's1' },
      client.key,
      publicCas,
    );
    const same = endpointTlsOptionsOf(
      { clientCertificate: client.cert, sealedClientKey: 's1' },
      client.key,
      publicCas,
    );
    const rotated = endpointTlsOptionsOf(
      { clientCertificate: client.cert, sealedClientKey: 's2' },
      client.key,
      publicCas,
    );
    expect(same?.id).toBe(a?.id);
    expect(rotated?.id).not.toBe(a?.id);
    expect(endpointTlsOptionsOf(undefined, undefined, publicCas)).toBeUndefined();
  });
});
