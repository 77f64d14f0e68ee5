/**
 * `gridwire subscription create|update --ordered-by <key>` and `--no-ordered-by`: the key checked
 * against the rule before any request, sent as `properties.orderedDelivery` (beside `labels` in a
 * namespace subscription too), kept by an `update` that does not name it, turned off by
 * `--no-ordered-by`, and printed by `show` and `list`. Run through the program against a scripted
 * API on a local port (with `--api`, so each request is signed as on AWS); every body sent is
 * also parsed with the API's own body parser.
 */
import { gridwireProgram } from '../../../cli/program';
import { ORDERED_KEY_RULE } from '../../../shared/domain/model';
import { parseNamespaceSubscriptionBody } from '../../../shared/management/namespace-schema';
import { parseSubscriptionBody } from '../../../shared/management/subscription-schema';
import { scriptedApi } from '../../support/scripted-api';

const { answers, seen, gridwire } = scriptedApi();

/** The bodies of the PUTs the command sent. */
const putBodies = () =>
  seen.filter((request) => request.method === 'PUT').map(({ body }) => body as Record<string, unknown>);

const CLASSIC = '/admin/topics/orders/eventSubscriptions/billing';
const NAMESPACED = '/admin/namespaces/shop/topics/carts/eventSubscriptions/billing';

/** A classic webhook subscription's document as the API shows it. */
const classicDocument = (orderedDelivery: { key: string } | null, name = 'billing') => ({
  id: `/topics/orders/eventSubscriptions/${name}`,
  name,
  type: 'Microsoft.EventGrid/eventSubscriptions',
  properties: {
    provisioningState: 'Succeeded',
    destination: {
      endpointType: 'WebHook',
      properties: {
        endpointBaseUrl: `https://hooks.example.com/${name}`,
        maxEventsPerBatch: 1,
        preferredBatchSizeInKilobytes: 64,
      },
    },
    filter: { includedEventTypes: null },
    retryPolicy: { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 },
    eventDeliverySchema: 'EventGridSchema',
    labels: [],
    deliveryLog: 'Failures',
    disableAfterFailingFor: 'P5D',
    orderedDelivery,
  },
});

/** A namespace push subscription's document as the API shows it. */
const namespaceDocument = (orderedDelivery: { key: string } | null) => ({
  name: 'billing',
  type: 'Microsoft.EventGrid/namespaces/topics/eventSubscriptions',
  properties: {
    provisioningState: 'Succeeded',
    deliveryConfiguration: {
      deliveryMode: 'Push',
      push: {
        maxDeliveryCount: 10,
        eventTimeToLive: 'P1D',
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointBaseUrl: 'https://hooks.example.com/billing',
            maxEventsPerBatch: 1,
            preferredBatchSizeInKilobytes: 64,
          },
        },
      },
    },
    eventDeliverySchema: 'CloudEventSchemaV1_0',
    filtersConfiguration: { includedEventTypes: null },
    labels: ['tenant=acme'],
    deliveryLog: 'Failures',
    disableAfterFailingFor: 'P5D',
    orderedDelivery,
  },
});

/** An existing classic subscription, as `update` reads it: its document and its full URL. */
function existingClassic(orderedDelivery: { key: string } | null) {
  answers[`GET ${CLASSIC}`] = { status: 200, body: classicDocument(orderedDelivery) };
  answers[`POST ${CLASSIC}/getFullUrl`] = {
    status: 200,
    body: { endpointUrl: 'https://hooks.example.com/billing?code=1' },
  };
}

const parsedClassic = (body: unknown) => parseSubscriptionBody(body, { allowHttp: false });
const parsedNamespaced = (body: unknown) =>
  parseNamespaceSubscriptionBody(body, {
    allowHttp: false,
    topic: { name: 'carts', eventRetentionInDays: 1 },
  });

describe('--ordered-by', () => {
  it.each(['', 'data..orderId', '.subject', 'subject.', 'a.b.c.d.e.f.g.h.i', `data.${'x'.repeat(257)}`])(
    'refuses %j naming the flag and the rule, before any request',
    async (key) => {
      await expect(
        gridwire(
          'subscription',
          'create',
          '--topic',
          'orders',
          '--name',
          'billing',
          '--endpoint',
          'https://hooks.example.com/billing',
          '--ordered-by',
          key,
        ),
      ).rejects.toThrow(`--ordered-by must be ${ORDERED_KEY_RULE}.`);
      expect(seen).toEqual([]);
    },
  );

  it('is an option of subscription create and update, with --no-ordered-by', () => {
    const subscription = gridwireProgram().commands.find((command) => command.name() === 'subscription');
    for (const name of ['create', 'update']) {
      const help = (
        subscription?.commands.find((command) => command.name() === name)?.helpInformation() ?? ''
      ).replace(/\s+/g, ' ');
      expect(help).toContain('--ordered-by <key> deliver events with the same key one at a time');
      expect(help).toContain('--no-ordered-by no delivery order');
    }
  });
});

describe('gridwire subscription create', () => {
  it('sends the key as properties.orderedDelivery, and prints it', async () => {
    answers[`PUT ${CLASSIC}`] = { status: 201, body: classicDocument({ key: 'data.orderId' }) };
    const printed = await gridwire(
      'subscription',
      'create',
      '--topic',
      'orders',
      '--name',
      'billing',
      '--endpoint',
      'https://hooks.example.com/billing',
      '--ordered-by',
      'data.orderId',
    );
    const [body] = putBodies();
    expect(body).toEqual({
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointUrl: 'https://hooks.example.com/billing' },
        },
        orderedDelivery: { key: 'data.orderId' },
      },
    });
    expect(parsedClassic(body).orderedDelivery).toEqual({ key: 'data.orderId' });
    expect(printed).toContain('Created topic orders, subscription billing.');
    expect(printed.split('\n')).toContainEqual(expect.stringMatching(/^ordered by: +data\.orderId$/));
  });

  it('sends nothing about order without the flag, and prints "-"', async () => {
    answers[`PUT ${CLASSIC}`] = { status: 201, body: classicDocument(null) };
    const printed = await gridwire(
      'subscription',
      'create',
      '--topic',
      'orders',
      '--name',
      'billing',
      '--endpoint',
      'https://hooks.example.com/billing',
    );
    expect(putBodies()[0]?.properties).not.toHaveProperty('orderedDelivery');
    expect(printed.split('\n')).toContainEqual(expect.stringMatching(/^ordered by: +-$/));
  });

  it('puts the key beside labels in a namespace subscription', async () => {
    answers['GET /admin/namespaces/shop/topics/carts'] = {
      status: 200,
      body: { name: 'carts', properties: { eventRetentionInDays: 1 } },
    };
    answers[`PUT ${NAMESPACED}`] = { status: 201, body: namespaceDocument({ key: 'subject' }) };
    await gridwire(
      'subscription',
      'create',
      '--topic',
      'carts',
      '--namespace',
      'shop',
      '--name',
      'billing',
      '--endpoint',
      'https://hooks.example.com/billing',
      '--labels',
      'tenant=acme',
      '--ordered-by',
      'subject',
    );
    const [body] = putBodies();
    expect(body?.properties).toMatchObject({ labels: ['tenant=acme'], orderedDelivery: { key: 'subject' } });
    expect(parsedNamespaced(body).orderedDelivery).toEqual({ key: 'subject' });
  });
});

describe('gridwire subscription update', () => {
  it('keeps the key when the flag is not given', async () => {
    existingClassic({ key: 'subject' });
    answers[`PUT ${CLASSIC}`] = { status: 200, body: classicDocument({ key: 'subject' }) };
    const printed = await gridwire(
      'subscription',
      'update',
      '--topic',
      'orders',
      '--name',
      'billing',
      '--max-delivery-attempts',
      '5',
    );
    const [body] = putBodies();
    expect(body?.properties).toMatchObject({
      retryPolicy: { maxDeliveryAttempts: 5 },
      orderedDelivery: { key: 'subject' },
    });
    expect(parsedClassic(body).orderedDelivery).toEqual({ key: 'subject' });
    expect(printed).toContain('Updated topic orders, subscription billing.');
  });

  it('changes the key with --ordered-by, and turns order off with --no-ordered-by', async () => {
    existingClassic({ key: 'subject' });
    answers[`PUT ${CLASSIC}`] = { status: 200, body: classicDocument({ key: 'data.customer.id' }) };
    await gridwire(
      'subscription',
      'update',
      '--topic',
      'orders',
      '--name',
      'billing',
      '--ordered-by',
      'data.customer.id',
    );
    expect(putBodies()[0]?.properties).toMatchObject({ orderedDelivery: { key: 'data.customer.id' } });

    seen.length = 0;
    answers[`PUT ${CLASSIC}`] = { status: 200, body: classicDocument(null) };
    const printed = await gridwire(
      'subscription',
      'update',
      '--topic',
      'orders',
      '--name',
      'billing',
      '--no-ordered-by',
    );
    const [body] = putBodies();
    expect(body?.properties).toMatchObject({ orderedDelivery: null });
    expect(parsedClassic(body)).not.toHaveProperty('orderedDelivery');
    expect(printed.split('\n')).toContainEqual(expect.stringMatching(/^ordered by: +-$/));
  });

  it("keeps a namespace subscription's key, and its other settings", async () => {
    answers[`GET ${NAMESPACED}`] = { status: 200, body: namespaceDocument({ key: 'data.orderId' }) };
    answers[`POST ${NAMESPACED}/getFullUrl`] = {
      status: 200,
      body: { endpointUrl: 'https://hooks.example.com/billing' },
    };
    answers[`PUT ${NAMESPACED}`] = { status: 200, body: namespaceDocument({ key: 'data.orderId' }) };
    await gridwire(
      'subscription',
      'update',
      '--topic',
      'carts',
      '--namespace',
      'shop',
      '--name',
      'billing',
      '--delivery-log',
      'All',
    );
    const [body] = putBodies();
    expect(body?.properties).toMatchObject({
      labels: ['tenant=acme'],
      deliveryLog: 'All',
      orderedDelivery: { key: 'data.orderId' },
    });
    expect(parsedNamespaced(body).orderedDelivery).toEqual({ key: 'data.orderId' });
  });
});

describe('gridwire subscription list', () => {
  it('has an ORDERED BY column when a subscription keeps order, "-" for the others', async () => {
    answers['GET /admin/topics/orders/eventSubscriptions'] = {
      status: 200,
      body: { value: [classicDocument({ key: 'subject' }), classicDocument(null, 'audit')] },
    };
    const rows = (await gridwire('subscription', 'list', '--topic', 'orders')).split('\n');
    expect(rows[0]).toMatch(/^NAME\s+STATE\s+ENDPOINT\s+EVENT TYPES\s+ORDERED BY$/);
    expect(rows[1]).toMatch(/^billing\s+Succeeded\s+https:\S+\s+all\s+subject$/);
    expect(rows[2]).toMatch(/^audit\s+Succeeded\s+https:\S+\s+all\s+-$/);
  });

  it('has no such column when none does', async () => {
    answers['GET /admin/topics/orders/eventSubscriptions'] = {
      status: 200,
      body: { value: [classicDocument(null), classicDocument(null, 'audit')] },
    };
    const rows = (await gridwire('subscription', 'list', '--topic', 'orders')).split('\n');
    expect(rows[0]).toMatch(/^NAME\s+STATE\s+ENDPOINT\s+EVENT TYPES$/);
  });
});
