/**
 * Dead letters end to end: ended deliveries wait the (scaled) 5 minutes, then land in the local
 * S3 emulator at the documented key, grouped into few blobs. Time scale 60: 5 minutes are 5 s.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { deadLetterTargetSchema, type EndedJob, JOB_FORMAT_VERSION } from '../../shared/domain/delivery';

import { METRIC } from '../../shared/observability/metrics';
import { LOCAL_REGION } from '../../shared/platform/aws';
import { DeadLetterBucket } from '../../shared/storage/dead-letter-bucket';
import { deadLetterStepHarness, deliveryTarget, item } from '../support/fakes';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventMarker, eventually, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 60;
let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const deadLetterDestination = (container: string) => ({
  endpointType: 'StorageBlob',
  properties: { blobContainerName: container },
});

async function blobsUnder(
  prefix: string,
): Promise<Array<{ key: string; records: Record<string, unknown>[] }>> {
  const { s3 } = api.stack.clients;
  const bucket = api.stack.resources.bucketName;
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  const store = new DeadLetterBucket(s3, bucket);
  return Promise.all(
    (listed.Contents ?? []).map(async (object) => ({
      key: object.Key ?? '',
      records: JSON.parse((await store.get(object.Key ?? '')) ?? '[]'),
    })),
  );
}

const route = (topic: string, subscription: string) =>
  `/admin/topics/${topic}/eventSubscriptions/${subscription}`;

describe('dead letters in S3', () => {
  it('writes an event the webhook refused, after the scaled 5-minute delay, as the spec record', async () => {
    const key = await api.createTopic('refused');
    await api.subscribe(
      'refused',
      'strict-hook',
      webhook.url('/refused', () => ({ status: 400 })),
      {
        deadLetterDestination: deadLetterDestination('dead'),
      },
    );
    const publishedAt = Date.now();
    expect((await api.publish('refused', key, [event('order-1')])).status).toBe(200);
    await eventually(() => webhook.requestsTo('/refused').length === 1, 10_000, 'the attempt');
    const attemptedAt = webhook.requestsTo('/refused')[0]?.at ?? 0;

    const blobs = await eventually(
      async () => {
        const found = await blobsUnder('dead/STRICT-HOOK/');
        return found.length > 0 && found;
      },
      15_000,
      'the dead-letter blob',
    );

    const written = Date.now();
    // Not before the 5-minute delay (5 s at time scale 60).
    expect(written - attemptedAt).toBeGreaterThanOrEqual((5 * 60_000) / TIME_SCALE - 1000);
    expect(blobs).toHaveLength(1);
    const now = new Date();
    expect(blobs[0]?.key).toMatch(
      new RegExp(
        `^dead/STRICT-HOOK/${now.getUTCFullYear()}/${now.getUTCMonth() + 1}/\\d{1,2}/\\d{1,2}/[0-9a-f-]{36}\\.json$`,
      ),
    );
    const [record] = blobs[0]?.records ?? [];
    expect(Object.keys(record ?? {})).toEqual([
      'id',
      'subject',
      'eventType',
      'eventTime',
      'data',
      'topic',
      'metadataVersion',
      'dataVersion',
      'deadLetterReason',
      'deliveryAttempts',
      'lastDeliveryOutcome',
      'publishTime',
      'lastDeliveryAttemptTime',
    ]);
    expect(record).toMatchObject({
      ...event('order-1'),
      topic: '/gridwire/topics/refused',
      metadataVersion: '1',
      dataVersion: '',
      deadLetterReason: 'NonRetriableOutcome',
      deliveryAttempts: 1,
      lastDeliveryOutcome: 'BadRequest',
    });
    const publishTime = Date.parse(String(record?.publishTime));
    const lastAttempt = Date.parse(String(record?.lastDeliveryAttemptTime));
    expect(publishTime).toBeGreaterThanOrEqual(publishedAt - 5);
    expect(lastAttempt).toBeGreaterThanOrEqual(publishTime);
    expect(Math.abs(lastAttempt - attemptedAt)).toBeLessThan(500);
    expect(await api.historyWhen('refused', 'strict-hook', 'order-1', 'DeadLettered')).toMatchObject({
      status: 'DeadLettered',
      reason: 'NonRetriableOutcome',
    });
  }, 30_000);

  it('writes a burst of 1,000 refused events in at most 20 blobs', async () => {
    const key = await api.createTopic('burst');
    await api.subscribe(
      'burst',
      'burst-hook',
      webhook.url('/burst', () => ({ status: 400 })),
      {
        deadLetterDestination: deadLetterDestination('burst-dead'),
      },
    );
    for (let request = 0; request < 10; request += 1) {
      const events = Array.from({ length: 100 }, (_, i) => event(`b-${request * 100 + i}`));
      expect((await api.publish('burst', key, events)).status).toBe(200);
    }

    const blobs = await eventually(
      async () => {
        const found = await blobsUnder('burst-dead/BURST-HOOK/');
        const records = found.reduce((sum, blob) => sum + blob.records.length, 0);
        return records === 1000 && found;
      },
      25_000,
      'all 1,000 dead letters',
    );

    expect(blobs.length).toBeLessThanOrEqual(20);
    const ids = new Set(blobs.flatMap((blob) => blob.records.map((record) => record.id)));
    expect(ids.size).toBe(1000);
  }, 40_000);

  it('ends an event whose time to live runs out with TimeToLiveExceeded', async () => {
    const key = await api.createTopic('expiring');
    await api.subscribe(
      'expiring',
      'slow-hook',
      webhook.url('/expiring', () => ({ status: 500 })),
      {
        deadLetterDestination: deadLetterDestination('dead'),
        // 1 minute is 1 s at time scale 60; retries come after 10 s, 30 s, 1 min (scaled).
        retryPolicy: { eventTimeToLiveInMinutes: 1 },
      },
    );
    expect((await api.publish('expiring', key, [event('late-1')])).status).toBe(200);

    const blobs = await eventually(
      async () => {
        const found = await blobsUnder('dead/SLOW-HOOK/');
        return found.length > 0 && found;
      },
      20_000,
      'the dead-letter blob',
    );

    expect(blobs[0]?.records[0]).toMatchObject({ id: 'late-1', deadLetterReason: 'TimeToLiveExceeded' });
    // How many attempts fit in the second the event lives depends on how busy the machine is (on
    // a busy one, none: the time to live may run out before the first), and the reason, not the
    // count, is what the time to live decides; the record counts the attempts the endpoint got.
    expect(Number(blobs[0]?.records[0]?.deliveryAttempts)).toBe(webhook.requestsTo('/expiring').length);
  }, 30_000);

  it("leaves a deleted subscription's dead letters to no successor of the same name, in the same container", async () => {
    const key = await api.createTopic('charges');
    const deadLetters = {
      deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
      retryPolicy: { maxDeliveryAttempts: 1 },
    };
    await api.subscribe(
      'charges',
      'shared2',
      webhook.url('/refusing', () => ({ status: 400 })),
      deadLetters,
    );
    const charged = event('card-3', 'Card.Charged', { cardNumber: '4111111111111111' });
    expect((await api.publish('charges', key, [charged])).status).toBe(200);
    const deadLettersOf = () => api.call('GET', `${route('charges', 'shared2')}/deadLetters`);
    // The predecessor's own listing shows its blob once written.
    const [blob] = await eventually(
      async () => {
        const listed = (await deadLettersOf()).body.value as { key: string }[];
        return listed.length > 0 && listed;
      },
      20_000,
      "the predecessor's dead letter",
    );

    expect((await api.call('DELETE', route('charges', 'shared2'))).status).toBe(200);
    await api.subscribe('charges', 'shared2', webhook.url('/third'), deadLetters);

    expect((await deadLettersOf()).body.value).toEqual([]);
    const shown = await api.call(
      'GET',
      `${route('charges', 'shared2')}/deadLetters/blob?key=${encodeURIComponent(blob?.key ?? '')}`,
    );
    expect(shown.status).toBe(404);
    expect(JSON.stringify(shown.body)).not.toContain('4111111111111111');
    const replayed = await api.call('POST', `${route('charges', 'shared2')}/deadLetters/replay`, {
      keys: [blob?.key],
      force: true,
    });
    expect(replayed.body).toMatchObject({ eventsQueued: 0, notFound: [blob?.key] });
    expect(
      webhook.requestsTo('/third').filter((request) => request.body.includes(eventMarker('card-3'))),
    ).toEqual([]);
  }, 60_000);
});

describe('a dead-letter bucket that cannot be written (real S3 emulator, injected clock)', () => {
  const H = 3_600_000;
  const emulator = () => api.stack.clients.s3;
  /** An S3 client aimed at a loopback port nothing listens on: every request is refused. */
  let unreachable: S3Client;

  beforeAll(async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    unreachable = new S3Client({
      region: LOCAL_REGION,
      credentials: api.stack.endpoints.credentials,
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      maxAttempts: 1,
    });
  });

  afterAll(() => unreachable?.destroy());

  /** The step writing through whichever client `client()` returns at the time of the write. */
  function stepOn(bucketName: string, client: () => S3Client) {
    const { clock, queue, metrics, step } = deadLetterStepHarness({
      put: (key, body, topic) => new DeadLetterBucket(client(), bucketName).put(key, body, topic),
    });
    // Subscription `audit` of topic `orders`, dead-lettering to `dead` in the Event Grid schema.
    const target = deadLetterTargetSchema.parse(deliveryTarget({ deadLetter: { container: 'dead' } }));
    const job = (id: string): EndedJob => ({
      v: JOB_FORMAT_VERSION,
      kind: 'ended',
      target,
      ended: [
        {
          item: item(id, clock.now() - 1000, { attempts: 1 }),
          reason: 'NonRetriableOutcome',
          endedAt: clock.now(),
        },
      ],
    });
    return { clock, queue, metrics, step, job };
  }

  const dropReasons = (metrics: ReturnType<typeof stepOn>['metrics']) =>
    metrics
      .drain()
      .filter((point) => point.name === METRIC.DroppedEventCount && point.dimensions.DropReason !== undefined)
      .map((point) => point.dimensions.DropReason);

  it('loses nothing when the bucket can be reached again within 4 hours', async () => {
    const bucketName = `outage-short-${Date.now()}`;
    await emulator().send(new CreateBucketCommand({ Bucket: bucketName }));
    let client = unreachable;
    const { clock, queue, step, job } = stepOn(bucketName, () => client);

    const first = await step.write([job('kept')]);
    expect(first).toMatchObject({ written: 0, waiting: 1, dropped: 0 });

    client = emulator();
    clock.advance(3 * H);
    const retried = await step.write(queue.takeEnded().map((entry) => entry.job));

    expect(retried).toMatchObject({ written: 1, dropped: 0 });
    const listed = await emulator().send(
      new ListObjectsV2Command({ Bucket: bucketName, Prefix: 'dead/AUDIT/' }),
    );
    expect(listed.Contents).toHaveLength(1);
  });

  it('drops and counts what it could not write for 4 hours', async () => {
    const { clock, queue, metrics, step, job } = stepOn(`outage-long-${Date.now()}`, () => unreachable);
    await step.write([job('lost')]);
    clock.advance(4 * H);

    const report = await step.write(queue.takeEnded().map((entry) => entry.job));

    expect(report).toMatchObject({ written: 0, waiting: 0, dropped: 1 });
    expect(dropReasons(metrics)).toEqual(['DeadLetterStoreUnavailable']);
  });

  // 003 (classic page), "Retry schedule", the note: "Dead lettered events will be dropped when the
  // dead-letter destination isn't found", and "If the dead-letter location is unavailable for four
  // hours, the event is dropped": a bucket that does not exist is tried for four hours (it may be
  // made meanwhile), then what was meant for it is dropped with its reason.
  it('tries a bucket that does not exist for 4 hours, writes once it is made, and drops with its reason if it never is', async () => {
    const late = `made-later-${Date.now()}`;
    const madeLater = stepOn(late, emulator);
    expect(await madeLater.step.write([madeLater.job('late')])).toMatchObject({ written: 0, waiting: 1 });
    await emulator().send(new CreateBucketCommand({ Bucket: late }));
    madeLater.clock.advance(H);
    const written = await madeLater.step.write(madeLater.queue.takeEnded().map((entry) => entry.job));
    expect(written).toMatchObject({ written: 1, dropped: 0 });

    const { clock, queue, metrics, step, job } = stepOn(`never-created-${Date.now()}`, emulator);
    expect(await step.write([job('nowhere')])).toMatchObject({ written: 0, waiting: 1, dropped: 0 });
    clock.advance(4 * H);
    const report = await step.write(queue.takeEnded().map((entry) => entry.job));
    expect(report).toMatchObject({ written: 0, waiting: 0, dropped: 1 });
    expect(queue.takeEnded()).toHaveLength(0);
    expect(dropReasons(metrics)).toEqual(['DeadLetterDestinationNotFound']);
  });
});
