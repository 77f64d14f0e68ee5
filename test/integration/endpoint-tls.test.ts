/**
 * A webhook's own TLS settings on the real local stack, against https webhooks here whose
 * certificates a CA made in the test signed (the system's openssl): an endpoint that requires a
 * client certificate gets the subscription's and takes the delivery; with none, or one another CA
 * signed, its handshake refuses the connection and the attempt is retried as a TLS failure (its
 * OpenSSL code in the delivery history) until a right certificate is given; an endpoint whose
 * certificate a private CA signed is reached with `caCertificates` and refused without; the
 * validation handshake goes out with the same certificate; requests tunnel through an egress
 * proxy. The settings are checked when saved (each refusal a 400 naming the field), shown as
 * summaries only, and a document sent back keeps them.
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { systemClock } from '../../shared/platform/clock';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { type KeyPair, TestPki } from '../support/test-pki';
import { eventually, WebhookServer } from '../support/webhook-server';

const pki = new TestPki();
const serverCa = pki.ca('Gridwire Test Server CA');
const clientCa = pki.ca('Gridwire Test Client CA');
const otherCa = pki.ca('Someone Else CA');
const serverCert = pki.leaf(serverCa, 'localhost', 'server');
/** Expires in 10 days: within the 30 days health warns of. */
const client = pki.leaf(clientCa, 'gridwire-client', 'client', 10);
const longClient = pki.leaf(clientCa, 'gridwire-client-2', 'client', 90);
const stranger = pki.leaf(otherCa, 'stranger', 'client');

let api: TestStack;
let key: string;
/** Requires a client certificate the client CA signed. */
let mutual: WebhookServer;
/** Serves a certificate of the private server CA; asks for no client certificate. */
let privateCa: WebhookServer;

beforeAll(async () => {
  mutual = await new WebhookServer({ ...serverCert, clientCa: clientCa.cert }).start();
  privateCa = await new WebhookServer(serverCert).start();
  api = await startTestStack({ timeScale: 60 });
  key = await api.createTopic('secure');
}, 30_000);

afterAll(async () => {
  await api?.close();
  await mutual?.stop();
  await privateCa?.stop();
  pki.dispose();
});

const route = (name: string) => `/admin/topics/secure/eventSubscriptions/${name}`;

/** Saves a subscription of `secure` for events of type `Case.<name>` with these destination properties. */
const put = (name: string, properties: Record<string, unknown>) =>
  api.call('PUT', route(name), {
    properties: {
      destination: { endpointType: 'WebHook', properties },
      filter: { includedEventTypes: [`Case.${name}`] },
    },
  });

const publish = async (name: string, id: string) =>
  expect((await api.publish('secure', key, [event(id, `Case.${name}`)])).status).toBe(200);

const mutualTls = (pair: KeyPair = client) => ({
  clientCertificate: pair.cert,
  clientKey: pair.key,
  caCertificates: serverCa.cert,
  trustPublicCas: false,
});

/** The delivery history record of `id` once it has at least `attempts` attempts. */
const historyAfter = (name: string, id: string, attempts: number) =>
  eventually(
    async () => {
      const record = (await api.call('GET', `${route(name)}/deliveries?eventId=${id}`)).body.value?.[0];
      return (record?.attempts?.length ?? 0) >= attempts && record;
    },
    15_000,
    `${attempts} attempts of ${id}`,
  );

describe('mutual TLS', () => {
  it('delivers with the client certificate, shows only its summary, and warns of its end', async () => {
    const saved = await put('mtls', { endpointUrl: mutual.url('/mtls'), tls: mutualTls() });
    expect(saved.status).toBe(201);
    await publish('mtls', 'm-1');
    const request = await mutual.requestWith('/mtls', '"id":"m-1"');
    expect(request.clientCertificate).toBe('gridwire-client');

    const shown = (await api.call('GET', route('mtls'))).body;
    const tls = shown.properties.destination.properties.tls;
    expect(tls).toEqual({
      clientCertificate: {
        sha256Fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
        subject: 'CN=gridwire-client',
        issuer: 'CN=Gridwire Test Client CA',
        validFromTime: expect.any(String),
        expiresTime: expect.any(String),
      },
      clientKey: null,
      caCertificates: [expect.objectContaining({ subject: 'CN=Gridwire Test Server CA' })],
      trustPublicCas: false,
    });
    const text = JSON.stringify(shown);
    expect(text).not.toContain('BEGIN');
    expect(text).not.toContain(client.key.split('\n')[1]);

    const health = (await api.call('GET', `${route('mtls')}/health`)).body;
    expect(health.warnings).toEqual([
      expect.objectContaining({ code: 'ClientCertificateExpiring', daysLeft: expect.any(Number) }),
    ]);
    expect(health.warnings[0].daysLeft).toBeGreaterThanOrEqual(9);
    expect(health.warnings[0].daysLeft).toBeLessThanOrEqual(10);

    // Its deliveries wrote the days left, per subscription, for the alarm to watch.
    const { metrics } = (await api.call('GET', '/local/status')).body as {
      metrics: { name: string; dimensions: Record<string, string>; max: number }[];
    };
    const daysLeft = metrics.find(
      (metric) =>
        metric.name === 'ClientCertificateDaysLeft' &&
        /^mtls$/i.test(metric.dimensions.EventSubscriptionName ?? ''),
    );
    expect(daysLeft?.max).toBe(health.warnings[0].daysLeft);
  });

  it('keeps the certificate, key and CAs when the document is sent back, and rotates by PUT', async () => {
    const shown = (await api.call('GET', route('mtls'))).body.properties.destination.properties;
    const sentBack = await put('mtls', { endpointUrl: mutual.url('/mtls'), tls: shown.tls });
    expect(sentBack.status).toBe(200);
    await publish('mtls', 'm-2');
    expect((await mutual.requestWith('/mtls', '"id":"m-2"')).clientCertificate).toBe('gridwire-client');

    const rotated = await put('mtls', { endpointUrl: mutual.url('/mtls'), tls: mutualTls(longClient) });
    expect(rotated.status).toBe(200);
    await publish('mtls', 'm-3');
    expect((await mutual.requestWith('/mtls', '"id":"m-3"')).clientCertificate).toBe('gridwire-client-2');
    expect((await api.call('GET', `${route('mtls')}/health`)).body.warnings).toBeUndefined();
  });

  it.each([
    [
      'no client certificate',
      { caCertificates: serverCa.cert, trustPublicCas: false },
      // The endpoint's alert (TLS 1.3), named.
      /^ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: TLS: .*alert certificate required.*give one in destination\.properties\.tls\)$/,
    ],
    [
      'a certificate another CA signed',
      mutualTls(stranger),
      // Node's server closes the connection without an alert: only the close is seen.
      /^UND_ERR_SOCKET: other side closed \(.*it may have refused the client certificate\)$/,
    ],
  ])(
    'with %s, the endpoint refuses and the attempt is retried as a TLS failure',
    async (_, tls, expected) => {
      const name = tls === undefined || !('clientKey' in tls) ? 'bare' : 'stranger';
      const refusals = mutual.tlsFailures.length;
      expect((await put(name, { endpointUrl: mutual.url(`/${name}`), tls })).status).toBe(201);
      await publish(name, `${name}-1`);
      const record = await historyAfter(name, `${name}-1`, 2);
      expect(record.status).not.toBe('Delivered');
      for (const attempt of record.attempts) {
        expect(attempt).toMatchObject({ outcome: 'SocketError' });
        expect(attempt.error).toMatch(expected);
      }
      expect(mutual.requestsTo(`/${name}`)).toHaveLength(0);
      expect(mutual.tlsFailures.length).toBeGreaterThan(refusals);

      // The right certificate given, the next retry is taken.
      expect((await put(name, { endpointUrl: mutual.url(`/${name}`), tls: mutualTls() })).status).toBe(200);
      const delivered = await mutual.requestWith(`/${name}`, `"id":"${name}-1"`);
      expect(delivered.clientCertificate).toBe('gridwire-client');
    },
  );
});

describe('a private CA', () => {
  it('is trusted with caCertificates, and its endpoint refused without', async () => {
    expect((await put('untrusted', { endpointUrl: privateCa.url('/untrusted') })).status).toBe(201);
    await publish('untrusted', 'u-1');
    const record = await historyAfter('untrusted', 'u-1', 1);
    expect(record.attempts[0]).toMatchObject({ outcome: 'SocketError' });
    expect(record.attempts[0].error).toBe(
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE: TLS: unable to verify the first certificate (the endpoint's certificate is not signed by a CA trusted for it: give its CA in destination.properties.tls.caCertificates)",
    );
    expect(privateCa.requestsTo('/untrusted')).toHaveLength(0);

    const trusted = await put('trusted', {
      endpointUrl: privateCa.url('/trusted'),
      tls: { caCertificates: serverCa.cert },
    });
    expect(trusted.status).toBe(201);
    expect(trusted.body.properties.destination.properties.tls).toEqual({
      caCertificates: [expect.objectContaining({ subject: 'CN=Gridwire Test Server CA' })],
      trustPublicCas: true,
    });
    await publish('trusted', 't-1');
    await privateCa.requestWith('/trusted', '"id":"t-1"');
  });
});

describe('checked when saved', () => {
  const field = 'properties.destination.properties.tls';

  it.each([
    [
      'a certificate that is not PEM',
      { clientCertificate: 'hello', clientKey: client.key },
      `${field}.clientCertificate: holds no PEM certificate`,
    ],
    [
      'a key without its certificate',
      { clientKey: client.key },
      `${field}.clientKey: is the client certificate's key`,
    ],
    ['a certificate without its key', { clientCertificate: client.cert }, `${field}.clientKey: is required`],
    [
      "a key that is not the certificate's",
      { clientCertificate: client.cert, clientKey: stranger.key },
      `${field}.clientKey: is not the private key of the client certificate`,
    ],
    [
      'a key that is not PEM',
      { clientCertificate: client.cert, clientKey: 'nope' },
      `${field}.clientKey: is not a PEM private key`,
    ],
    ['CAs that are not PEM', { caCertificates: 'nope' }, `${field}.caCertificates: holds no PEM certificate`],
    [
      'only its own CAs without any',
      { trustPublicCas: false },
      `${field}.trustPublicCas: false trusts only this endpoint's own CAs`,
    ],
    [
      'a certificate kept that it does not have',
      { clientCertificate: { sha256Fingerprint: 'AB:CD' } },
      `${field}.clientCertificate: the subscription has no client certificate`,
    ],
    ['an unknown member', { passphrase: 'x' }, `${field}`],
  ])('refuses %s with a 400 naming the field', async (_, tls, message) => {
    const refused = await put('refused', { endpointUrl: mutual.url('/refused'), tls });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(message);
    expect((await api.call('GET', route('refused'))).status).toBe(404);
  });

  it("refuses a client certificate or CA that has expired, by the stack's clock", async () => {
    const yearOn = 365 * 24 * 3600 * 1000;
    const later = await startTestStack({ clock: { ...systemClock, now: () => Date.now() + yearOn } });
    try {
      await later.createTopic('later');
      const save = (tls: Record<string, unknown>) =>
        later.call('PUT', '/admin/topics/later/eventSubscriptions/hook', {
          properties: {
            destination: { endpointType: 'WebHook', properties: { endpointUrl: mutual.url('/later'), tls } },
          },
        });
      const certificate = await save(mutualTls());
      expect(certificate.status).toBe(400);
      expect(certificate.body.error.message).toMatch(
        new RegExp(
          `^${field.replace(/\./g, '\\.')}\\.clientCertificate: expired on .* \\(CN=gridwire-client\\)\\.$`,
        ),
      );
      const authority = await save({ caCertificates: serverCa.cert });
      expect(authority.status).toBe(400);
      expect(authority.body.error.message).toMatch(
        /\.caCertificates: certificate 1 expired on .*Gridwire Test Server CA/,
      );
    } finally {
      await later.close();
    }
  });

  it('refuses TLS settings for an http endpoint', async () => {
    const refused = await put('plain', {
      endpointUrl: 'http://127.0.0.1:9/plain',
      tls: { caCertificates: serverCa.cert },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(`${field}: is for https endpoints`);
  });
});

describe('the validation handshake', () => {
  it('goes out with the client certificate deliveries use', async () => {
    const validating = await startTestStack({ timeScale: 60, validateEndpoints: true });
    try {
      const topicKey = await validating.createTopic('checked');
      const hook = mutual.url('/validated', (request) => {
        const [first] = JSON.parse(request.body) as [
          { eventType: string; data: { validationCode?: string } },
        ];
        return first.eventType === 'Microsoft.EventGrid.SubscriptionValidationEvent'
          ? { status: 200, body: JSON.stringify({ validationResponse: first.data.validationCode }) }
          : { status: 200 };
      });
      const saved = await validating.call('PUT', '/admin/topics/checked/eventSubscriptions/hook', {
        properties: {
          destination: { endpointType: 'WebHook', properties: { endpointUrl: hook, tls: mutualTls() } },
        },
      });
      expect(saved.status).toBe(201);
      await eventually(
        async () =>
          (await validating.call('GET', '/admin/topics/checked/eventSubscriptions/hook')).body.properties
            .provisioningState === 'Succeeded',
        15_000,
        'the subscription validated',
      );
      const [handshake] = mutual.requestsTo('/validated');
      expect(handshake?.clientCertificate).toBe('gridwire-client');
      expect((await validating.publish('checked', topicKey, [event('v-1')])).status).toBe(200);
      expect((await mutual.requestWith('/validated', '"id":"v-1"')).clientCertificate).toBe(
        'gridwire-client',
      );
    } finally {
      await validating.close();
    }
  });
});

describe('an egress proxy', () => {
  let proxy: Server;
  const tunnels: string[] = [];

  beforeAll(async () => {
    // A forward proxy as corporate networks run them: CONNECT opens a tunnel, nothing else is served.
    proxy = createServer((_, response) => response.writeHead(405).end());
    proxy.on('connect', (request, socket: Socket, head: Buffer) => {
      tunnels.push(request.url ?? '');
      const [host, port] = (request.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('tunnels deliveries through it, client certificate and all', async () => {
    const port = (proxy.address() as { port: number }).port;
    const proxied = await startTestStack({ timeScale: 60, egressProxyUrl: `http://127.0.0.1:${port}` });
    try {
      const topicKey = await proxied.createTopic('proxied');
      const saved = await proxied.call('PUT', '/admin/topics/proxied/eventSubscriptions/hook', {
        properties: {
          destination: {
            endpointType: 'WebHook',
            properties: { endpointUrl: mutual.url('/proxied'), tls: mutualTls() },
          },
        },
      });
      expect(saved.status).toBe(201);
      expect((await proxied.publish('proxied', topicKey, [event('p-1')])).status).toBe(200);
      const request = await mutual.requestWith('/proxied', '"id":"p-1"');
      expect(request.clientCertificate).toBe('gridwire-client');
      expect(tunnels).toContain(new URL(mutual.url('/proxied')).host);
      expect((await proxied.call('GET', '/admin/egress')).body).toEqual({
        addresses: [],
        staticAddresses: false,
        proxy: true,
      });
    } finally {
      await proxied.close();
    }
  });
});
