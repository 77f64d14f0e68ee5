/**
 * A subscription's replays from its topic's archive: `POST <subscription>/replays` with
 * `{"since", "until"?, "eventTypes"?}` starts one (202, its document), `GET <subscription>/replays`
 * lists them, `GET .../replays/{replayId}` shows one (state, events found, queued, delivered), and
 * `DELETE .../replays/{replayId}` cancels it: its next page does nothing. The pages themselves
 * run on the delivery function (`archive/replay.ts`).
 */
import { z } from 'zod';
import { replayPageBody } from '../archive/replay';
import { deliveryTargetOf } from '../delivery/target';
import type { Subscription } from '../domain/model';
import { splitNamespaceTopicId, topicRefOf } from '../domain/names';
import { MAX_REPLAY_EVENT_TYPES, MAX_RUNNING_REPLAYS, type Replay } from '../domain/replays';
import { emptyResult, type HttpEvent, jsonResult, parseJsonBody, pathParam } from '../http/api-gateway';
import { badRequest, conflict, notFound } from '../http/errors';
import { targetGroupId } from '../queue/job-codec';
import type { ClockDeps, IdDeps, QueueDeps, ReplayDeps, TopicStoreDeps } from './deps';
import { MAX_BODY_BYTES } from './http-helpers';
import type { Operations, SubscriptionFinder } from './operation';
import { invalidBody } from './request-body';

const DAY_MS = 24 * 3_600_000;

export type ReplayRouteDeps = ReplayDeps & TopicStoreDeps & ClockDeps & IdDeps & QueueDeps;

const instant = (field: string) =>
  z
    .string({ error: `${field} must be a date and time (ISO 8601, such as 2026-12-01T10:00:00Z)` })
    .refine((text) => Number.isFinite(Date.parse(text)) && /\d{4}-\d{2}-\d{2}T/.test(text), {
      error: `${field} must be a date and time (ISO 8601, such as 2026-12-01T10:00:00Z)`,
    });

export const replayBodySchema = z.strictObject({
  since: instant('since'),
  until: instant('until').optional(),
  eventTypes: z
    .array(z.string().min(1, 'eventTypes: each must be a non-empty string'))
    .min(1, 'eventTypes: give at least one, or leave it out for all')
    .max(MAX_REPLAY_EVENT_TYPES, `eventTypes: at most ${MAX_REPLAY_EVENT_TYPES}`)
    .optional(),
});

/** The replay as the API shows it. */
export const replayDocument = (replay: Replay) => ({
  id: replay.id,
  state: replay.state,
  since: new Date(replay.since).toISOString(),
  until: new Date(replay.until).toISOString(),
  ...(replay.eventTypes === undefined ? {} : { eventTypes: replay.eventTypes }),
  eventsFound: replay.found,
  eventsQueued: replay.queued,
  eventsDelivered: replay.delivered,
  ...(replay.reason === undefined ? {} : { reason: replay.reason }),
  createdAt: replay.createdAt,
  lastModifiedAt: replay.updatedAt,
});

/** The archive a subscription's topic keeps: its retention and the topic's creation time. */
async function archiveOfTopic(
  deps: TopicStoreDeps,
  topicId: string,
): Promise<{ retentionInDays: number; createdAt: string }> {
  const parts = splitNamespaceTopicId(topicId);
  const topic =
    parts === undefined
      ? await deps.topics.get(topicId, { consistent: true })
      : await deps.namespaceTopics.get(parts.namespace, parts.topic, { consistent: true });
  if (topic === undefined) throw notFound(`The topic '${topicId}' does not exist.`);
  if (topic.archive === undefined) {
    throw badRequest(
      `The topic '${topicId}' keeps no archive, so there is nothing to replay: give it properties.archive {"retentionInDays": 1..365}; events it accepts from then on can be replayed.`,
      'NoArchive',
    );
  }
  return { retentionInDays: topic.archive.retentionInDays, createdAt: topic.createdAt };
}

/** The range asked for, checked against now and the archive's retention. */
function rangeOf(body: z.infer<typeof replayBodySchema>, now: number, retentionInDays: number) {
  const since = Date.parse(body.since);
  const until = body.until === undefined ? now : Date.parse(body.until);
  if (!(since < until)) throw badRequest('since must be before until.', 'InvalidRange');
  if (until > now) throw badRequest('until must not be in the future.', 'InvalidRange');
  const oldest = now - retentionInDays * DAY_MS;
  if (since < oldest) {
    throw badRequest(
      `since is older than the topic's archive keeps events (retentionInDays ${retentionInDays}): the range may start at ${new Date(oldest).toISOString()} at the earliest.`,
      'RangeBeyondRetention',
    );
  }
  return { since, until };
}

function requireReplay(replay: Replay | undefined, id: string): Replay {
  if (replay === undefined) throw notFound(`The replay '${id}' does not exist.`);
  return replay;
}

const replayIdParam = (event: HttpEvent) => pathParam(event, 'replayId');

/**
 * The shape of the ids `POST .../replays` makes (`rp-` and a UUID), loosely: letters, digits and
 * hyphens, at most 100. A path id of any other shape names no replay and is not looked up: a long
 * one could not even be part of a table key (a sort key holds at most 1,024 bytes), and the store
 * refused it with an error, not an answer.
 */
const REPLAY_ID_SHAPE = /^[A-Za-z0-9-]{1,100}$/;

/** The subscription's replay with the path's id, when there is one. */
async function readReplay(
  deps: ReplayDeps,
  subscription: Subscription,
  id: string,
): Promise<Replay | undefined> {
  if (!REPLAY_ID_SHAPE.test(id)) return undefined;
  return deps.replays.get(subscription.topic, subscription.name, id);
}

/** The replay routes on the subscriptions under `subscriptionPath`. */
export function replayOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & ReplayRouteDeps> {
  return {
    [`POST ${subscriptionPath}/replays`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      const parsed = replayBodySchema.safeParse(parseJsonBody(event, MAX_BODY_BYTES));
      if (!parsed.success) throw invalidBody(parsed.error, 'replay request');
      const archive = await archiveOfTopic(deps, subscription.topic);
      const now = deps.clock.now();
      const { since, until } = rangeOf(parsed.data, now, archive.retentionInDays);
      const running = (await deps.replays.list(subscription.topic, subscription.name)).filter(
        ({ state }) => state === 'Running',
      );
      if (running.length >= MAX_RUNNING_REPLAYS) {
        throw conflict(
          `The subscription has ${running.length} replays running, the most it may have at once (${MAX_RUNNING_REPLAYS}): wait for one to end, or cancel one (DELETE .../replays/{id}).`,
        );
      }
      const at = new Date(now).toISOString();
      const replay: Replay = {
        id: `rp-${deps.newId()}`,
        topic: subscription.topic,
        topicCreatedAt: archive.createdAt,
        subscription: subscription.name,
        ...(subscription.uid === undefined ? {} : { subscriptionUid: subscription.uid }),
        since,
        until,
        ...(parsed.data.eventTypes === undefined ? {} : { eventTypes: parsed.data.eventTypes }),
        state: 'Running',
        found: 0,
        queued: 0,
        delivered: 0,
        createdAt: at,
        updatedAt: at,
      };
      await deps.replays.put(replay);
      // Events of the range's last moments may not be in the archive yet: the first page waits
      // until they are (at most one SQS delay).
      const wait = Math.min(900, Math.ceil(Math.max(0, until + deps.archiveLagMs - now) / 1000));
      await sendFirstPage(deps, subscription, replay.id, wait);
      return jsonResult(202, replayDocument(replay));
    },

    [`GET ${subscriptionPath}/replays`]: async (event, deps) => {
      const subscription = await find(event, deps);
      const replays = await deps.replays.list(subscription.topic, subscription.name);
      return jsonResult(200, { value: replays.map(replayDocument) });
    },

    [`GET ${subscriptionPath}/replays/{replayId}`]: async (event, deps) => {
      const subscription = await find(event, deps);
      const id = replayIdParam(event);
      return jsonResult(200, replayDocument(requireReplay(await readReplay(deps, subscription, id), id)));
    },

    [`DELETE ${subscriptionPath}/replays/{replayId}`]: async (event, deps) => {
      const subscription = await find(event, deps);
      const id = replayIdParam(event);
      const replay = requireReplay(await readReplay(deps, subscription, id), id);
      if (replay.state !== 'Running') return emptyResult(204);
      await deps.replays.end(replay, 'Cancelled', new Date(deps.clock.now()), 'cancelled (DELETE)');
      return emptyResult(200);
    },
  };
}

/** The replay's first page, on the delivery queue in the subscription's group. */
async function sendFirstPage(
  deps: QueueDeps,
  subscription: Subscription,
  replayId: string,
  delaySeconds: number,
): Promise<void> {
  const target = deliveryTargetOf(subscription);
  await deps.queue.send('delivery', [
    {
      body: replayPageBody(topicRefOf(subscription.topic), subscription.name, replayId),
      delaySeconds,
      groupId: targetGroupId(target),
    },
  ]);
}
