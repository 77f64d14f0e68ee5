/**
 * A dead-letter burst: 1,000 events a webhook refuses, for a subscription with a dead-letter
 * destination, on a stack of its own: S3 PUTs per dead-lettered event.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeadLetterBucket } from '../../shared/storage/dead-letter-bucket';
import { round } from '../harness/figures';
import { liveStack, publishInHundreds } from '../harness/live-stack';
import { log } from '../harness/log';
import type { Scenario, ScenarioResult } from '../harness/types';

/**
 * A burst of 1,000 events a webhook refuses (400), for a subscription with a dead-letter
 * destination: how many S3 PUTs the dead-letter step makes per dead-lettered event. Time scale 60,
 * so the 5-minute write delay is 5 s.
 */
async function measureDeadLetters(quick: boolean): Promise<ScenarioResult> {
  const events = 1000;
  const timeScale = 60;
  log(
    `dead-letter burst: ${events.toLocaleString('en-US')} events refused with 400, time scale ${timeScale}`,
  );
  const refusing = createServer((_request, response) => {
    response.writeHead(400).end();
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/refuse`;
  const live = await liveStack({ timeScale });
  try {
    const topic = 'burst';
    await live.call('PUT', `/admin/topics/${topic}`, { properties: { inputSchema: 'EventGridSchema' } });
    await live.call('PUT', `/admin/topics/${topic}/eventSubscriptions/refused`, {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: url } },
        deadLetterDestination: {
          endpointType: 'StorageBlob',
          properties: { blobContainerName: 'bench-dead' },
        },
      },
    });
    const { key1 } = (await live.call('POST', `/admin/topics/${topic}/listKeys`)) as { key1: string };
    live.usage.take();
    const started = Date.now();
    await publishInHundreds(live, topic, key1, events, 'dl', 'Bench.Refused');
    // Count PUTs until every event is in a blob (the S3 reads that check are not counted as PUTs).
    const bucket = new DeadLetterBucket(live.stack.clients.s3, live.stack.resources.bucketName);
    let written = 0;
    let blobs = 0;
    const deadline = Date.now() + (quick ? 30_000 : 60_000);
    while (written < events && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const listed = await bucket.list('bench-dead/REFUSED/');
      blobs = listed.length;
      written = 0;
      for (const blob of listed) written += JSON.parse((await bucket.get(blob.key)) ?? '[]').length;
    }
    const puts = live.usage.take().aws.requests['s3:PutObject'] ?? 0;
    const perEvent = written === 0 ? Number.NaN : puts / written;
    return {
      name: 'dead-letter burst',
      description: `${events.toLocaleString('en-US')} events refused with 400 by the webhook of a subscription with a dead-letter destination; time scale ${timeScale} (the 5-minute write delay is 5 s).`,
      figures: [
        {
          metric: 'events dead-lettered',
          value: written,
          unit: 'events',
          goal: `${events}`,
          met: written === events,
        },
        { metric: 'dead-letter blobs written', value: blobs, unit: 'blobs' },
        {
          metric: 'S3 PUTs per dead-lettered event',
          value: round(perEvent, 4),
          unit: 'PUTs',
          goal: '<= 0.02',
          met: perEvent <= 0.02,
        },
        {
          metric: 'first publish to last dead letter',
          value: round((Date.now() - started) / 1000, 1),
          unit: 's',
        },
      ],
      details: { puts, blobs, written },
    };
  } finally {
    await live.close();
    await new Promise<void>((resolve) => refusing.close(() => resolve()));
  }
}

export const deadLetters: Scenario = {
  name: 'dead-letters',
  description: '1,000 events refused with 400, dead-lettered: blobs and S3 PUTs per event',
  uses: [],
  run: async (ctx) => ({ results: [await measureDeadLetters(ctx.quick)] }),
};
