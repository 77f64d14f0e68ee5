/**
 * Dead letters in a bucket the subscription names, end to end on the local stack: the blobs land
 * in a bucket the test made in the S3 emulator (not the stack's), the management API and the
 * command line list, show and replay them from there, and a bucket that does not exist is tried
 * for four hours, then what was meant for it is dropped with its reason. Time scale 3600: the
 * four hours are 4 s (the writes' waits are at least a second each).
 *
 * Seed 003, "Dead-letter events": the subscriber provides the storage that holds undelivered
 * events; "If the dead-letter location is unavailable for four hours, the event is dropped", and
 * "Dead lettered events will be dropped when the dead-letter destination isn't found".
 */
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { runGridwire } from '../../cli/program';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 3600 });
  key = await api.createTopic('billing');
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const route = (name: string) => `/admin/topics/billing/eventSubscriptions/${name}`;

/** A subscription whose webhook refuses every event (400: dead-lettered at once) into `bucket`. */
const refusingInto = async (name: string, bucket: string) =>
  api.call('PUT', route(name), {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: webhook.url(`/${name}`, () => ({ status: 400 })) },
      },
      deadLetterDestination: {
        endpointType: 'StorageBlob',
        properties: { blobContainerName: 'undelivered', resourceId: `arn:aws:s3:::${bucket}` },
      },
    },
  });

describe('dead letters in a bucket the subscription names', () => {
  it('writes them to that bucket, and lists, shows and replays them from there', async () => {
    const bucket = `team-dead-${Date.now()}`;
    const { s3 } = api.stack.clients;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const saved = await refusingInto('to-team', bucket);
    expect(saved.status).toBe(201);
    expect(saved.body.properties.deadLetterDestination.properties.resourceId).toBe(`arn:aws:s3:::${bucket}`);

    expect((await api.publish('billing', key, [event('team-1')])).status).toBe(200);
    const listed = await eventually(
      async () => {
        const found = await s3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: 'undelivered/TO-TEAM/' }),
        );
        return (found.Contents?.length ?? 0) > 0 && found.Contents;
      },
      20_000,
      "the dead letter in the team's bucket",
    );
    const blobKey = listed[0]?.Key as string;
    // Nothing of it in the stack's own bucket.
    const own = await s3.send(
      new ListObjectsV2Command({ Bucket: api.stack.resources.bucketName, Prefix: 'undelivered/' }),
    );
    expect(own.Contents ?? []).toHaveLength(0);

    const page = await api.call('GET', `${route('to-team')}/deadLetters`);
    expect(page.status).toBe(200);
    expect(page.body.value.map((blob: { key: string }) => blob.key)).toEqual([blobKey]);
    const shown = await api.call(
      'GET',
      `${route('to-team')}/deadLetters/blob?key=${encodeURIComponent(blobKey)}`,
    );
    expect(shown.status).toBe(200);
    expect(shown.body.records[0]).toMatchObject({ id: 'team-1', deadLetterReason: 'NonRetriableOutcome' });

    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
      lines.push(parts.map(String).join(' '));
    });
    try {
      await runGridwire([
        'deadletters',
        'list',
        '--topic',
        'billing',
        '--subscription',
        'to-team',
        '--data-dir',
        api.stack.dataDir,
      ]);
    } finally {
      log.mockRestore();
    }
    expect(lines.join('\n')).toContain(blobKey);

    const replay = await api.call('POST', `${route('to-team')}/deadLetters/replay`, { keys: [blobKey] });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ eventsQueued: 1 });
    // The replay marker is written beside the blob, in the team's bucket.
    const marked = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: blobKey }));
    expect(marked.Contents?.map((object) => object.Key).sort()).toEqual([blobKey, `${blobKey}.replayed`]);
  });

  it('drops, with DeadLetterDestinationNotFound, what a bucket that does not exist could not take for four hours', async () => {
    const missing = `never-made-${Date.now()}`;
    expect((await refusingInto('to-nowhere', missing)).status).toBe(201);
    const published = Date.now();
    expect((await api.publish('billing', key, [event('nowhere-1')])).status).toBe(200);
    await eventually(
      // Counted per reason or per subscription, never both: this stack drops for no other reason.
      () => api.stack.metrics.sum('DroppedEventCount', { DropReason: 'DeadLetterDestinationNotFound' }) === 1,
      30_000,
      'the drop of nowhere-1',
    );
    // Not at the first failed write: four hours (4 s at this scale) of tries came first.
    expect(Date.now() - published).toBeGreaterThanOrEqual((4 * 3600_000) / 3600);
    expect(api.stack.metrics.sum('DeadLetteredCount', { EventSubscriptionName: 'TO-NOWHERE' })).toBe(0);
  });
});
