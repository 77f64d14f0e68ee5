/**
 * This machine's reference rates, measured first in a run with throughput scenarios, so their
 * figures can also be read as multiples of what this machine does at all: on a machine of the
 * same kind but another speed the absolute rates move, the multiples much less.
 *
 * - Loopback HTTP: requests per second a bare `node:http` server (200, empty body) in the
 *   benchmark's process answers to the load generator's process, through the load generator's own
 *   connection pool (`LOAD_GENERATOR_POOL`). The local stack's gateway sits where that server is.
 * - SQS round trips: one message sent, received and deleted, per second, on the emulator the
 *   local stack runs (`startEmulators`, fauxqs on SQLite in a fresh data directory, queues made by
 *   `provisionLocalResources`), through the same local client the stack's functions use.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { createAwsClients } from '../../shared/platform/aws';
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { ReferenceRate, ReferenceRates, Scenario } from '../harness/types';
import type { Publishers } from '../load';
import { LOAD_GENERATOR_POOL } from '../load-client';

interface Timing {
  warmUpMs: number;
  measuredMs: number;
}

/** Round trips in flight at once: as many as saturate the emulator here without queueing in it. */
const SQS_CONCURRENCY = 8;
/** The body of each message: an event's size as the held scenario publishes it. */
const SQS_BODY_BYTES = 1024;
/** How long after the window a loop still tries to receive before it stops (none is expected). */
const RECEIVE_GIVE_UP_MS = 5000;

async function loopbackHttp(publishers: Publishers, timing: Timing): Promise<ReferenceRate> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const outcome = await publishers.loopback({ url: `http://127.0.0.1:${port}/reference`, ...timing });
    return {
      rate: round(outcome.answered / (outcome.measuredMs / 1000), 0),
      unit: 'requests/s',
      label: 'loopback HTTP requests answered per second',
      count: outcome.answered,
      failed: outcome.failed,
      warmUpSeconds: timing.warmUpMs / 1000,
      measuredSeconds: outcome.measuredMs / 1000,
      concurrency: outcome.inFlight,
      method: `a bare \`node:http\` server in the benchmark's process answering \`POST\` of \`[]\` with 200 and an empty body, asked by the load generator's process through its own client (undici \`Pool\`, ${LOAD_GENERATOR_POOL.connections} connections, no pipelining), one request in flight per connection; ${timing.warmUpMs / 1000} s of warm-up, then ${timing.measuredMs / 1000} s counted`,
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function sqsRoundTrips(timing: Timing): Promise<ReferenceRate> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gridwire-bench-reference-'));
  const emulators = await startEmulators({ dataDir });
  const { sqs, ...others } = createAwsClients(emulators.endpoints);
  try {
    const QueueUrl = (await provisionLocalResources({ sqs, ...others })).queueUrls.delivery;
    const MessageBody = 'x'.repeat(SQS_BODY_BYTES);
    const measureFrom = performance.now() + timing.warmUpMs;
    const stopAt = measureFrom + timing.measuredMs;
    const counted = () => {
      const at = performance.now();
      return at >= measureFrom && at < stopAt;
    };
    let completed = 0;
    let failed = 0;
    const loop = async () => {
      while (performance.now() < stopAt) {
        try {
          await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody }));
          // Another loop may have taken the message just sent; each loop deletes what it receives.
          let message: Message | undefined;
          while (message?.ReceiptHandle === undefined && performance.now() < stopAt + RECEIVE_GIVE_UP_MS) {
            message = (await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 })))
              .Messages?.[0];
          }
          if (message?.ReceiptHandle === undefined) throw new Error('no message to receive');
          await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
          if (counted()) completed += 1;
        } catch {
          if (counted()) failed += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: SQS_CONCURRENCY }, loop));
    return {
      rate: round(completed / (timing.measuredMs / 1000), 0),
      unit: 'round trips/s',
      label: 'SQS emulator round trips (send, receive, delete) per second',
      count: completed,
      failed,
      warmUpSeconds: timing.warmUpMs / 1000,
      measuredSeconds: timing.measuredMs / 1000,
      concurrency: SQS_CONCURRENCY,
      method: `the local stack's emulator (fauxqs on SQLite, in its own process, started as the stack starts it) and its delivery queue; from the benchmark's process, through the local stack's SQS client, one ${SQS_BODY_BYTES.toLocaleString('en-US')}-byte message sent, received and deleted per round trip, ${SQS_CONCURRENCY} round trips in flight; ${timing.warmUpMs / 1000} s of warm-up, then ${timing.measuredMs / 1000} s counted`,
    };
  } finally {
    sqs.destroy();
    others.dynamo.destroy();
    others.s3.destroy();
    await emulators.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export const reference: Scenario = {
  name: 'reference',
  description: "this machine's reference rates: loopback HTTP requests/s and SQS emulator round trips/s",
  uses: ['loadGenerator'],
  measuresReferenceRates: true,
  async run(ctx) {
    const timing: Timing = ctx.quick
      ? { warmUpMs: 1000, measuredMs: 3000 }
      : { warmUpMs: 2000, measuredMs: 5000 };
    const seconds = (timing.warmUpMs + timing.measuredMs) / 1000;
    log(`machine reference: loopback HTTP requests, ${seconds} s (${timing.warmUpMs / 1000} s not counted)`);
    const loopback = await loopbackHttp(await ctx.loadGenerator(), timing);
    log(
      `machine reference: SQS emulator round trips, ${seconds} s (${timing.warmUpMs / 1000} s not counted)`,
    );
    const sqs = await sqsRoundTrips(timing);
    const referenceRates: ReferenceRates = { loopbackHttp: loopback, sqsRoundTrips: sqs };
    return {
      results: [
        {
          name: 'machine reference',
          description: `What this machine does at all, measured before the load scenarios, for reading their rates as multiples (column "x reference"). Loopback HTTP: ${loopback.method}. SQS round trips: ${sqs.method}.`,
          figures: [loopback, sqs].map((rate) => ({ metric: rate.label, value: rate.rate, unit: rate.unit })),
          details: { ...referenceRates },
        },
      ],
      handOn: { referenceRates },
    };
  },
};
