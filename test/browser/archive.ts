/**
 * What the console's and the portal's replay tests share: a topic that keeps an archive, with
 * events published to it and waited for in the archive bucket; a replay running already (put in
 * the table with no page sent, so it runs until it is cancelled); a `datetime-local` field's
 * value for a time, in the browser's own time zone; and, in a Replays tab, a replay's row and
 * starting one with the form as filled until it is listed Completed.
 */
import type { Locator, Page } from 'playwright-core';
import { ARCHIVE_BUCKET, TABLE } from '../../shared/config/resources';
import { createAwsClients } from '../../shared/platform/aws';
import { ArchiveBucket } from '../../shared/storage/archive';
import { DynamoReplayStore } from '../../shared/storage/replays';
import type { event, TestStack } from '../support/local-stack';
import { eventually } from '../support/webhook-server';
import { WAIT_MS } from './browser';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Makes `topic` with a 7-day archive, publishes `events` to it and waits until the archive holds
 * them all.
 */
export async function archivedTopic(
  api: TestStack,
  topic: string,
  events: ReturnType<typeof event>[],
): Promise<void> {
  const made = await api.call('PUT', `/admin/topics/${topic}`, {
    properties: { inputSchema: 'EventGridSchema', archive: { retentionInDays: 7 } },
  });
  if (made.status !== 201) throw new Error(`topic ${topic}: ${made.status} ${JSON.stringify(made.body)}`);
  const key = (await api.call('POST', `/admin/topics/${topic}/listKeys`)).body.key1;
  const published = await api.publish(topic, key, events);
  if (published.status !== 200) throw new Error(`publish to ${topic}: ${published.status}`);
  const archive = new ArchiveBucket(createAwsClients(api.stack.endpoints).s3, ARCHIVE_BUCKET.localName);
  const createdAt = (await api.call('GET', `/admin/topics/${topic}`)).body.systemData.createdAt as string;
  await eventually(
    async () => {
      const now = Date.now();
      const segments = await archive.listSegments({ topic, createdAt }, now - HOUR_MS, now + HOUR_MS);
      const records = (await Promise.all(segments.map(({ key }) => archive.readSegment(key)))).flat();
      return records.length >= events.length;
    },
    30_000,
    `${events.length} archived events of ${topic}`,
  );
}

/** Puts a running replay of the last hour on the subscription, which nothing works on; answers its id. */
export async function runningReplay(api: TestStack, topic: string, subscription: string): Promise<string> {
  const replays = new DynamoReplayStore(createAwsClients(api.stack.endpoints).dynamo, TABLE.localName);
  const topicCreatedAt = (await api.call('GET', `/admin/topics/${topic}`)).body.systemData.createdAt;
  const now = Date.now();
  const id = `rp-waiting-${subscription}`;
  await replays.put({
    id,
    topic,
    topicCreatedAt,
    subscription,
    since: now - HOUR_MS,
    until: now,
    state: 'Running',
    found: 0,
    queued: 0,
    delivered: 0,
    createdAt: new Date(now - 60_000).toISOString(),
    updatedAt: new Date(now - 60_000).toISOString(),
  });
  return id;
}

/** The value a `datetime-local` field of `page` takes for `ms`: local time, to the minute. */
export const localFieldValue = (page: Page, ms: number): Promise<string> =>
  page.evaluate((at) => {
    const date = new Date(at);
    const two = (value: number) => String(value).padStart(2, '0');
    return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
  }, ms);

/** The row of replay `id` in the Replays tab `replays`, once it shows `state`. */
export const replayRow = (replays: Locator, id: string, state: string): Locator =>
  replays.locator(`[data-testid="replay-row"][data-id="${id}"][data-state="${state}"]`);

/**
 * Starts a replay with the form of the Replays tab `replays` as it is filled: waits for the
 * "Replay … started." the tab says and for the replay's row to show it Completed; answers its id
 * and that row.
 */
export async function startReplay(replays: Locator): Promise<{ id: string; done: Locator }> {
  await replays.getByRole('button', { name: 'Start replay' }).click();
  const started = replays.getByRole('status').filter({ hasText: /^Replay rp-\S+ started\.$/ });
  await started.waitFor({ timeout: WAIT_MS });
  const id = (await started.innerText()).split(' ')[1] as string;
  const done = replayRow(replays, id, 'Completed');
  await done.waitFor({ timeout: WAIT_MS });
  return { id, done };
}
