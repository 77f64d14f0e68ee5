/**
 * Upgrading with messages still queued. Jobs the builds before the delivery target queued (format
 * 1, written here byte for byte as they wrote them: `test/support/job-format-1.ts`) are left on
 * the delivery, retry and ended-delivery queues and in the fan-out bucket while no worker runs,
 * as a deploy finds them; when this release's workers start, every one is worked (delivered,
 * dead-lettered, or dropped as a deleted subscription's), and none is parked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { TABLE } from '../../shared/config/resources';
import type { DeliveryItem } from '../../shared/domain/delivery';
import { topicResourceId } from '../../shared/domain/names';
import { METRIC } from '../../shared/observability/metrics';
import { createAwsClients } from '../../shared/platform/aws';
import { tableStores } from '../../shared/storage/store';
import {
  type FormatOneEnvelope,
  formatOneDeliveryBody,
  formatOneEndedBody,
  formatOneFanOutBody,
  formatOneStoredFanOutBody,
} from '../support/job-format-1';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

const TOPIC = 'legacy';
const NOW = Date.now();

/** An event as the publisher of format 1 stamped and queued it (the delivery item's fields in its order). */
function legacyItem(id: string, extra: Partial<DeliveryItem> = {}): DeliveryItem {
  const eventJson = `{"id":"${id}","subject":"orders/${id}","eventType":"Order.Created","eventTime":"2026-11-24T10:00:00Z","data":{"id":"${id}","total":12.50},"dataVersion":"1.0","metadataVersion":"1","topic":"${topicResourceId(TOPIC)}"}`;
  return {
    deliveryId: `7d3c1f0e-52a4-4b7e-9c1d-${id.padStart(12, '0')}.0`,
    eventId: id,
    dataVersion: '1.0',
    eventJson,
    attempts: 0,
    publishedAt: NOW - 60_000,
    ...extra,
  };
}

const items = {
  delivered: [legacyItem('l-1'), legacyItem('l-2')],
  retried: legacyItem('r-1', {
    attempts: 2,
    lastOutcome: 'Busy',
    lastHttpStatus: 503,
    lastAttemptAt: NOW - 30_000,
  }),
  fannedOut: [legacyItem('f-1'), legacyItem('f-2')],
  stored: [legacyItem('s-1')],
  ended: legacyItem('d-1', {
    attempts: 3,
    lastOutcome: 'Busy',
    lastHttpStatus: 503,
    lastAttemptAt: NOW - 10_000,
  }),
  gone: legacyItem('g-1'),
  recreated: legacyItem('n-1'),
};

let webhook: WebhookServer;
let dataDir: string;
let api: TestStack;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-upgrade-'));

  // The subscriptions, made before the upgrade.
  const before = await startTestStack({ dataDir });
  let envelopes: Record<'receiver' | 'retried' | 'second' | 'dead' | 'renewed', FormatOneEnvelope>;
  try {
    await before.createTopic(TOPIC);
    for (const name of ['receiver', 'retried', 'second', 'renewed'] as const) {
      await before.subscribe(TOPIC, name, webhook.url(`/${name}`));
    }
    await before.subscribe(TOPIC, 'dead', webhook.url('/dead'), {
      deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
    });
    const store = tableStores(before.stack.clients.dynamo, TABLE.localName);
    const envelopeOf = async (name: string): Promise<FormatOneEnvelope> => {
      const subscription = await store.subscriptions.get(TOPIC, name, { consistent: true });
      if (subscription?.uid === undefined) throw new Error(`subscription ${name} not stored with a uid`);
      return {
        topic: TOPIC,
        subscription: name,
        subscriptionUid: subscription.uid,
        subscriptionVersion: subscription.version,
      };
    };
    envelopes = {
      receiver: await envelopeOf('receiver'),
      retried: await envelopeOf('retried'),
      second: await envelopeOf('second'),
      dead: await envelopeOf('dead'),
      renewed: await envelopeOf('renewed'),
    };
    // Deleted and created again after its jobs were queued: they are no longer its.
    expect((await before.call('DELETE', `/admin/topics/${TOPIC}/eventSubscriptions/renewed`)).status).toBe(
      200,
    );
    await before.subscribe(TOPIC, 'renewed', webhook.url('/renewed'));
  } finally {
    await before.close();
  }

  // What the previous build left queued, while no worker runs.
  const emulators = await startEmulators({ dataDir });
  try {
    const clients = createAwsClients(emulators.endpoints);
    const resources = await provisionLocalResources(clients);
    const send = (queue: 'delivery' | 'retry' | 'endedDelivery', body: string) =>
      clients.sqs.send(new SendMessageCommand({ QueueUrl: resources.queueUrls[queue], MessageBody: body }));
    const { subscriptionUid: _uid, subscriptionVersion: _version, ...unversioned } = envelopes.receiver;

    await send('delivery', formatOneDeliveryBody(envelopes.receiver, items.delivered));
    await send('retry', formatOneDeliveryBody({ ...envelopes.retried, dueAt: NOW - 1000 }, [items.retried]));
    await send(
      'delivery',
      formatOneFanOutBody(TOPIC, items.fannedOut, [
        { ...envelopes.receiver, matched: [0] },
        { ...envelopes.second, matched: [0, 1] },
      ]),
    );
    const storedBody = formatOneFanOutBody(TOPIC, items.stored, [
      { ...unversioned, matched: [0] },
      { ...envelopes.second, matched: [0] },
    ]);
    const key = 'fanouts/2026-11-24/legacy-publish.json';
    await clients.s3.send(
      new PutObjectCommand({ Bucket: resources.fanOutBucketName, Key: key, Body: storedBody }),
    );
    await send('delivery', formatOneStoredFanOutBody(TOPIC, key, Buffer.byteLength(storedBody, 'utf8')));
    await send(
      'endedDelivery',
      formatOneEndedBody(
        {
          ...envelopes.dead,
          deliveryProfile: 'topic',
          deadLetter: { container: 'dead', format: 'EventGridSchema' },
        },
        [{ item: items.ended, reason: 'MaxDeliveryAttemptsExceeded', endedAt: NOW - 5000 }],
      ),
    );
    await send('delivery', formatOneDeliveryBody({ topic: TOPIC, subscription: 'gone' }, [items.gone]));
    await send('delivery', formatOneDeliveryBody(envelopes.renewed, [items.recreated]));
  } finally {
    await emulators.stop();
  }

  // The upgraded release starts on the same data.
  api = await startTestStack({ dataDir });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

/** The events in the requests to `path`, by id, each with its request. */
const deliveredAt = (path: string) =>
  new Map(
    webhook
      .requestsTo(path)
      .flatMap((request) =>
        (JSON.parse(request.body) as { id: string }[]).map((event) => [event.id, request] as const),
      ),
  );

const waitFor = (path: string, ids: readonly string[]) =>
  eventually(() => ids.every((id) => deliveredAt(path).has(id)), 20_000, `${ids.join(', ')} at ${path}`);

it('delivers a format-1 delivery job queued before the upgrade, each event as it was published', async () => {
  await waitFor('/receiver', ['l-1', 'l-2']);

  for (const item of items.delivered) {
    const request = deliveredAt('/receiver').get(item.eventId);
    expect(request?.body).toBe(`[${item.eventJson}]`);
    expect(request?.headers['aeg-delivery-count']).toBe('0');
    expect(request?.headers['aeg-subscription-name']).toBe('RECEIVER');
  }
});

it('delivers a format-1 retry with the attempts it had made', async () => {
  await waitFor('/retried', ['r-1']);

  expect(deliveredAt('/retried').get('r-1')?.headers['aeg-delivery-count']).toBe('2');
});

it('delivers a format-1 fan-out and a stored fan-out to each subscription the events matched', async () => {
  await waitFor('/receiver', ['f-1', 's-1']);
  await waitFor('/second', ['f-1', 'f-2', 's-1']);

  expect(deliveredAt('/receiver').has('f-2')).toBe(false);
});

it('writes the dead letters of a format-1 ended-delivery job', async () => {
  const blob = await api.firstDeadLetterBlob(TOPIC, 'dead');

  expect(blob.records).toEqual([
    expect.objectContaining({
      id: 'd-1',
      deadLetterReason: 'MaxDeliveryAttemptsExceeded',
      deliveryAttempts: 3,
      lastDeliveryOutcome: 'Busy',
    }),
  ]);
}, 30_000);

it('drops the events of format-1 jobs whose subscription is gone or was created again, as for format 2', async () => {
  await eventually(
    () => api.stack.metrics.sum(METRIC.DroppedEventCount, { DropReason: 'SubscriptionDeleted' }) === 2,
    20_000,
    'two events dropped as SubscriptionDeleted',
  );

  expect(webhook.requestsTo('/renewed')).toEqual([]);
});

it('parks none of them: the queues they were on empty, their redrive queues too', async () => {
  await waitFor('/second', ['s-1']);
  const { sqs } = api.stack.clients;
  const { queueUrls, redriveQueueUrls } = api.stack.resources;
  const waiting = async (url: string) => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return Object.values(Attributes ?? {}).reduce((sum, count) => sum + Number(count), 0);
  };
  const queues = ['delivery', 'retry', 'endedDelivery'] as const;

  // Every message was taken and deleted, none is coming back for another try.
  await eventually(
    async () => (await Promise.all(queues.map((queue) => waiting(queueUrls[queue])))).every((n) => n === 0),
    20_000,
    'the delivery, retry and ended-delivery queues to be empty',
  );
  expect(await Promise.all(queues.map((queue) => waiting(redriveQueueUrls[queue])))).toEqual([0, 0, 0]);
});
