/**
 * Publishing: authenticate against the topic's keys (unless the gateway authorized the caller by
 * IAM; `authentication.ts`), validate the events, and queue their deliveries to every matching subscription as one
 * SQS message (all or nothing). Answers only once it is in SQS.
 */

import { packCopyParts } from '../archive/forward';
import { SQS_LIMITS } from '../config/resources';
import { isDeadLetterNoticeTopic } from '../delivery/rules/dead-letter-notice';
import { endpointAgreed } from '../delivery/rules/handshake';
import { parseTraceparent, TRACEPARENT_HEADER } from '../delivery/rules/trace-context';
import { deliveryTargetOf } from '../delivery/target';
import type { DeliveryItem, DeliveryTarget, TopicRef } from '../domain/delivery';
import {
  deduplicationWindowMs,
  type Namespace,
  type NamespaceTopic,
  subscriptionExpired,
  type Topic,
} from '../domain/model';
import { isValidName, topicIdOf } from '../domain/names';
import { badRequest, dependencyUnavailable, forbidden, notFound, payloadTooLarge } from '../http/errors';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';
import { TtlCache } from '../platform/cache';
import type { Clock } from '../platform/clock';
import {
  type FanOutDestination,
  fitsOneMessage,
  messageGroupId,
  packFanOut,
  packJobs,
  packStoreJobs,
  storedFanOutBody,
  targetGroupId,
} from '../queue/job-codec';
import { type JobQueue, type OutgoingJob, outgoingBytes, QueueRejectedError } from '../queue/sqs-job-queue';
import type { AcceptedIds } from '../storage/accepted-ids';
import type { EventTypeStore } from '../storage/event-types';
import { type FanOutStore, fanOutKey } from '../storage/fan-out-bucket';
import { type HeldMarks, type HeldSubscriptions, isHeld } from '../storage/held-marks';
import type { Store } from '../storage/store';
import { archiveCopyOf, sendCopiesOf } from './archiving';
import {
  authenticateNamespacePublish,
  authenticateTopicPublish,
  refuseUnknownTopic,
  requireNamespaceKey,
} from './authentication';
import { acceptOnce, type Deduplication, giveBack } from './deduplication';
import { EventCatalogs } from './event-validation';
import { type CompiledFilter, compileFilter } from './filter';
import { checkFanOut } from './limits';
import { orderedJobsOf } from './ordered-routing';
import {
  type AcceptedEvent,
  cloudEvent,
  type NamespacePublishRequest,
  type PublishRequest,
  parseEvents,
  parseNamespaceEvents,
} from './publish-request';

export interface PublisherDeps {
  store: Pick<Store, 'getTopic' | 'listSubscriptions' | 'getNamespace' | 'getNamespaceTopic'>;
  queue: JobQueue;
  /**
   * The held marks. With them, a publish that goes to one held subscription alone (its backlog
   * holds its events while its endpoint is unhealthy: `held-marks.ts`) is sent straight to the
   * backlog queue. Without them (the backlog's routing off), such publishes take the delivery
   * queue, as all do.
   */
  held?: Pick<HeldMarks, 'list'>;
  /** The event ids topics with a de-duplication window accepted. */
  acceptedIds: AcceptedIds;
  /** Where fan-outs too large for one SQS message are stored before their message is sent. */
  fanOuts: FanOutStore;
  clock: Clock;
  metrics: MetricBuffer;
  logger: LoggerLike;
  /** A unique id per publish request (delivery ids derive from it). */
  newId: () => string;
  /** How long a topic (keys, subscription-list version) is trusted without a read. */
  topicCacheMs: number;
  /**
   * Topics' event catalogs, read (their schemas only) when a topic with `validateEvents` is
   * published to and its catalog version moved. Without it, a publish to such a topic fails.
   */
  catalog?: Pick<EventTypeStore, 'schemas'>;
}

export interface PublishResult {
  accepted: number;
  matchedSubscriptions: number;
  /** SQS messages queued: one, or none when no subscription matched. */
  messages: number;
  /**
   * Events answered but not queued, as repeats of ids the topic accepted within its
   * de-duplication window (or earlier in the same request); absent when the topic has no window.
   */
  duplicates?: number;
}

/** Topics, namespaces and names found missing kept at most in one publish function. */
const LOOKUP_CACHE_ENTRIES = 10_000;

/**
 * The messages of a publish to one held subscription alone: `store` jobs for its backlog, due at
 * the publish and held as an unhealthy endpoint's events are (its tick decides when they go).
 */
export const heldPublishBodies = (
  target: DeliveryTarget,
  items: readonly DeliveryItem[],
  publishedAt: number,
): string[] => packStoreJobs({ target, dueAt: publishedAt, heldBy: 'probation' }, items);

/** A subscription a publish may go to: its delivery target, its compiled filter, and whether it is held. */
interface FilteredSubscription {
  target: DeliveryTarget;
  matches: CompiledFilter;
  held: boolean;
  /** The path of its `orderedDelivery.key`, split at its dots: its events go to the ordered queue. */
  orderedKey?: readonly string[];
  /** The subscription's expiration time, if it has one: from then on it gets nothing. */
  expirationTime?: string;
}

const NONE_HELD: HeldSubscriptions = new Map();

export class Publisher {
  private readonly topics: TtlCache<Topic | undefined>;
  private readonly subscriptionLists: TtlCache<FilteredSubscription[]>;
  private readonly namespaces: TtlCache<Namespace | undefined>;
  private readonly namespaceTopics: TtlCache<NamespaceTopic | undefined>;
  private readonly catalogs: EventCatalogs;

  constructor(private readonly deps: PublisherDeps) {
    // "No such topic" is kept too, as briefly as a topic: a flood of requests naming unknown
    // topics costs one read per name and period. Creating a topic (or namespace) is answered only
    // after this long, so a topic is found as soon as its creation returns.
    this.topics = new TtlCache(deps.topicCacheMs, deps.clock.now, { maxEntries: LOOKUP_CACHE_ENTRIES });
    this.namespaces = new TtlCache(deps.topicCacheMs, deps.clock.now, { maxEntries: LOOKUP_CACHE_ENTRIES });
    this.namespaceTopics = new TtlCache(deps.topicCacheMs, deps.clock.now, {
      maxEntries: LOOKUP_CACHE_ENTRIES,
    });
    // Keyed by the topic's creation time and subscriptionsVersion, so an entry is never stale (a
    // deleted and re-created topic starts its versions afresh); the TTL only frees memory.
    this.subscriptionLists = new TtlCache(10 * 60_000, deps.clock.now);
    this.catalogs = new EventCatalogs(deps.catalog, deps.clock.now);
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    const started = this.deps.clock.now();
    const topic = await this.topic(request.topic);
    if (topic === undefined) {
      // IAM callers are authenticated by the gateway, so they may learn that a topic is missing.
      if (request.credential?.kind === 'iam') throw notFound(`The topic '${request.topic}' does not exist.`);
      this.deps.logger.debug('publish to an unknown topic', { topic: request.topic });
      refuseUnknownTopic(request, this.deps);
    }
    authenticateTopicPublish(topic, request, this.deps);
    if (isDeadLetterNoticeTopic(topic.name)) {
      throw forbidden(
        `The topic '${topic.name}' carries Gridwire's own dead-letter notices; only Gridwire publishes to it.`,
      );
    }
    return this.toSubscriptions(topic, request, started);
  }

  /**
   * A classic topic as publishing reads it, through the short cache (also for a source, which
   * converts its messages to the topic's schema); `undefined` when there is none by that name. A
   * name no topic can have is not looked up (DynamoDB would refuse an oversized key).
   */
  topic(name: string): Promise<Topic | undefined> {
    if (!isValidName('topic', name)) return Promise.resolve(undefined);
    return this.topics.get(name.toLowerCase(), () => this.deps.store.getTopic(name, { consistent: true }));
  }

  /**
   * Publishes events Gridwire raises itself (dead-letter notices) to its own topic `name`, an
   * Event Grid schema topic: no credential is checked, and nothing is published while the topic
   * does not exist (it is made with its first subscription, so then nobody listens). Answers
   * `undefined` then.
   */
  async publishOwn(name: string, events: readonly object[]): Promise<PublishResult | undefined> {
    const started = this.deps.clock.now();
    const topic = await this.topics.get(name.toLowerCase(), () =>
      this.deps.store.getTopic(name, { consistent: true }),
    );
    if (topic === undefined) return undefined;
    const body = Buffer.from(JSON.stringify(events));
    // Gridwire's own events are never repeats: no ids are checked (a window set on the topic by
    // hand applies to nothing), nor checked against a catalog.
    const unchecked = { ...topic, deduplicationWindowInMinutes: 0, validateEvents: false };
    return this.toSubscriptions(unchecked, { topic: name, credential: undefined, path: '', body }, started);
  }

  /** Validates a classic topic's events and queues them for its matching subscriptions. */
  private async toSubscriptions(
    topic: Topic,
    request: PublishRequest,
    started: number,
  ): Promise<PublishResult> {
    const events = parseEvents(topic, request, { publishedAt: started, newId: this.deps.newId });
    await this.catalogs.check(topic.name, topic, events);
    const targets = await this.subscriptionLists.get(
      `${topic.name.toLowerCase()}#${topic.createdAt}#${topic.subscriptionsVersion}`,
      () => this.fanOutTargets(topic.name),
    );
    const dedup = {
      topic: { id: topic.name, createdAt: topic.createdAt },
      windowMs: deduplicationWindowMs(topic),
    };
    return this.fanOut(
      { name: topic.name },
      targets,
      events,
      started,
      dedup,
      topic.archive !== undefined,
      request.traceparent,
    );
  }

  /**
   * Publishes CloudEvents to a namespace topic (`POST /namespaces/{ns}/topics/{topic}:publish`):
   * the namespace's keys (`Authorization: SharedAccessKey <key>`), CloudEvents in structured,
   * batch or binary mode, at most {@link NAMESPACE_PUBLISH_LIMITS.maxEventsPerRequest} per request,
   * then the same fan-out as classic topics to the topic's push subscriptions.
   */
  async publishToNamespace(request: NamespacePublishRequest): Promise<PublishResult> {
    const started = this.deps.clock.now();
    const key = requireNamespaceKey(request);
    // As for classic topics, an unknown namespace and a wrong key get the same answer; a caller
    // holding the namespace's key may learn that a topic is missing.
    const namespace = isValidName('namespace', request.namespace)
      ? await this.namespaces.get(request.namespace.toLowerCase(), () =>
          this.deps.store.getNamespace(request.namespace, { consistent: true }),
        )
      : undefined;
    const found = authenticateNamespacePublish(namespace, key, request.namespace);
    const topic = isValidName('topic', request.topic)
      ? await this.namespaceTopics.get(`${found.name.toLowerCase()}/${request.topic.toLowerCase()}`, () =>
          this.deps.store.getNamespaceTopic(found.name, request.topic, { consistent: true }),
        )
      : undefined;
    if (topic === undefined) {
      throw notFound(`The topic '${request.topic}' does not exist in namespace '${request.namespace}'.`);
    }
    const events = parseNamespaceEvents(request).map(cloudEvent);
    const ref: TopicRef = { namespace: found.name, name: topic.name };
    const topicId = topicIdOf(ref);
    await this.catalogs.check(topicId, topic, events);
    const targets = await this.subscriptionLists.get(
      `${topicId.toLowerCase()}#${topic.createdAt}#${topic.subscriptionsVersion}`,
      () => this.fanOutTargets(topicId),
    );
    const dedup = {
      topic: { id: topicId, createdAt: topic.createdAt },
      windowMs: deduplicationWindowMs(topic),
    };
    return this.fanOut(
      ref,
      targets,
      events,
      started,
      dedup,
      topic.archive !== undefined,
      request.headers[TRACEPARENT_HEADER],
    );
  }

  /**
   * A topic's subscriptions whose endpoints agreed to receive (`Succeeded`), with their filters
   * compiled and whether each is held (cached per subscription-list version, which every
   * validation change and every held mark set or removed moves).
   */
  private async fanOutTargets(topicId: string): Promise<FilteredSubscription[]> {
    const [subscriptions, held] = await Promise.all([
      this.deps.store.listSubscriptions(topicId),
      this.deps.held?.list(topicId) ?? NONE_HELD,
    ]);
    return subscriptions.filter(endpointAgreed).map((subscription) => ({
      target: deliveryTargetOf(subscription),
      matches: compileFilter(subscription.filter),
      held: isHeld(held, subscription.name, subscription.uid),
      ...(subscription.expirationTime === undefined ? {} : { expirationTime: subscription.expirationTime }),
      ...(subscription.orderedDelivery === undefined
        ? {}
        : { orderedKey: subscription.orderedDelivery.key.split('.') }),
    }));
  }

  /**
   * Queues the deliveries of one publish to `topic` (a classic topic, or a namespace topic) as
   * ONE SQS message, so a publish is queued whole or not at all:
   * a delivery job when it all goes to one subscription in one job; else a fan-out carrying every
   * matched event once and, per subscription, the events it matched (the delivery step turns it
   * into the jobs); and a fan-out too large for a message is stored in the fan-out bucket first,
   * the message naming it. Answers only once that message is in SQS.
   */
  private async fanOut(
    topic: TopicRef,
    targets: readonly FilteredSubscription[],
    events: readonly AcceptedEvent[],
    started: number,
    dedup: Deduplication,
    /** Whether the topic keeps an archive: a copy of the accepted events goes to it. */
    archived: boolean,
    /** The publish request's `traceparent`: kept on its events when it is valid. */
    traceparent?: string,
  ): Promise<PublishResult> {
    // Storage, metrics and logs name the topic by its one text.
    const trace =
      parseTraceparent(traceparent) === undefined ? {} : { traceparent: (traceparent as string).trim() };
    const topicId = topicIdOf(topic);
    // Each filter runs once per event; nothing is queued unless the whole fan-out is allowed.
    // An expired subscription matches nothing from its expiration time on (the list is cached).
    const matchedBy: number[][] = [];
    let deliveries = 0;
    let fanOutBytes = 0;
    for (const target of targets) {
      const matched: number[] = [];
      matchedBy.push(matched);
      if (subscriptionExpired(target, started)) continue;
      const { matches } = target;
      events.forEach(({ view, queuedBytes }, index) => {
        if (!matches(view)) return;
        matched.push(index);
        fanOutBytes += queuedBytes;
      });
      deliveries += matched.length;
    }
    checkFanOut(deliveries, fanOutBytes);

    const publishId = this.deps.newId();
    // Repeats are answered but not queued: they leave every subscription's matches.
    const { repeats, claimed } = await acceptOnce(this.deps, dedup, events, publishId, started);
    if (repeats.size > 0) {
      for (const [targetIndex, matched] of matchedBy.entries()) {
        matchedBy[targetIndex] = matched.filter((index) => !repeats.has(index));
      }
    }
    // Every matched event once, in publish order; targets refer to them by position.
    const positionOf = new Map<number, number>();
    const items: DeliveryItem[] = [];
    const destinations: FanOutDestination[] = [];
    const heldTargets = new Set<DeliveryTarget>();
    for (const [targetIndex, { target, held }] of targets.entries()) {
      const matched = matchedBy[targetIndex] ?? [];
      if (matched.length === 0) continue;
      this.deps.metrics.count(
        METRIC.MatchedEventCount,
        matched.length,
        subscriptionDimensions(topicId, target.subscription),
      );
      if (held) heldTargets.add(target);
      destinations.push({
        target,
        matched: matched.map((index) => {
          let position = positionOf.get(index);
          if (position === undefined) {
            const { eventId, dataVersion, json } = events[index] as AcceptedEvent;
            position = items.length;
            positionOf.set(index, position);
            items.push({
              deliveryId: `${publishId}.${index}`,
              eventId,
              dataVersion,
              eventJson: json,
              attempts: 0,
              publishedAt: started,
              ...trace,
            });
          }
          return position;
        }),
      });
    }

    const topicDims = { Topic: topicId };
    const paths = new Map(
      targets.flatMap(({ target, orderedKey }) =>
        orderedKey === undefined ? [] : [[target, orderedKey] as const],
      ),
    );
    const ordered = orderedJobsOf(publishId, paths, destinations, items);
    const unordered = destinations.filter(({ target }) => !ordered.targets.has(target));
    const copies = archived
      ? packCopyParts(archiveCopyOf(dedup.topic, publishId, started, events, repeats, trace.traceparent))
      : [];
    // The copy rides on the publish's own message when it is one and fits (no request of its own).
    let copyCarried = false;
    if (destinations.length > 0) {
      try {
        // The ordered keys' messages first: a publish refused after them is sent again whole,
        // and their order within each key holds (see docs/subscribe.md, "Ordered delivery").
        await this.deps.queue.send('ordered', ordered.jobs);
        if (unordered.length > 0) {
          const [only] = copies;
          const carried = copies.length === 1 ? only : undefined;
          copyCarried = await this.queueWhole(
            topic,
            publishId,
            started,
            items,
            unordered,
            heldTargets,
            carried,
          );
        }
      } catch (error) {
        this.deps.logger.error('could not queue published events', {
          topic: topicId,
          error: (error as Error).message,
        });
        // Not queued, so not accepted: a retry of the request must not find its ids taken.
        await giveBack(this.deps, dedup, claimed, publishId, topicId);
        if (error instanceof RangeError) {
          // An event too large for a message: a guard, as the publish limit already refuses them.
          throw payloadTooLarge(`An event is too large to queue: ${error.message}.`);
        }
        if (error instanceof QueueRejectedError) {
          // Sending the same events again would be refused again: not a 503.
          throw badRequest(
            `The events could not be stored: the queue refused their content (${error.code}). Sending the same request again will not help; none of the request's events were queued.`,
            'EventsNotStorable',
          );
        }
        // The one message was not taken, so nothing of the request is delivered. (A send whose
        // answer was lost may still have been taken: a retry then delivers its events again,
        // with the same ids. See docs/local-stack.md, "Faults we test".)
        throw dependencyUnavailable(
          "The events could not be queued: the queue or the fan-out store is unavailable or throttling. None of the request's events were queued; send the request again after the time in Retry-After.",
        );
      }
    }
    const accepted = events.length - repeats.size;
    if (copies.length > 0 && !copyCarried) await sendCopiesOf(this.deps, topic, copies, accepted);
    this.deps.metrics.count(METRIC.UnmatchedEventCount, accepted - items.length, topicDims);
    this.deps.metrics.count(METRIC.PublishSuccessCount, accepted, topicDims);
    if (dedup.windowMs > 0) this.deps.metrics.count(METRIC.PublishDuplicateCount, repeats.size, topicDims);
    this.deps.metrics.duration(METRIC.PublishSuccessLatencyInMs, this.deps.clock.now() - started, topicDims);
    return {
      accepted,
      matchedSubscriptions: destinations.length,
      messages: ordered.jobs.length + (unordered.length > 0 ? 1 : 0),
      ...(dedup.windowMs > 0 ? { duplicates: repeats.size } : {}),
    };
  }

  /**
   * Sends the publish's one message: a delivery job (or, to one held subscription, a `store` job
   * for its backlog, due now), a fan-out, or a stored fan-out's name; with `copy`, the publish's
   * archive copy on it when the two fit one message. Answers whether the copy went with it.
   */
  private async queueWhole(
    topic: TopicRef,
    publishId: string,
    started: number,
    items: readonly DeliveryItem[],
    destinations: readonly FanOutDestination[],
    heldTargets: ReadonlySet<DeliveryTarget>,
    copy: Buffer | undefined,
  ): Promise<boolean> {
    const sendOne = async (queue: 'delivery' | 'backlog', job: OutgoingJob): Promise<boolean> => {
      const withCopy = copy === undefined ? job : { ...job, archiveCopy: copy };
      const carried = copy !== undefined && outgoingBytes(withCopy) <= SQS_LIMITS.maxMessageBytes;
      await this.deps.queue.send(queue, [carried ? withCopy : job]);
      return carried;
    };
    const [only] = destinations;
    if (destinations.length === 1 && only !== undefined) {
      const matched = only.matched.map((position) => items[position] as DeliveryItem);
      if (heldTargets.has(only.target)) {
        // Held like any event reaching a held endpoint: its backlog's tick decides, when the hold
        // ends, whether to probe, drain or keep it (attempt count, time to live and all).
        const stored = heldPublishBodies(only.target, matched, started);
        if (stored.length === 1) {
          return sendOne('backlog', {
            body: stored[0] as string,
            delaySeconds: 0,
            groupId: targetGroupId(only.target),
          });
        }
      }
      const bodies = packJobs(only, matched);
      if (bodies.length === 1) {
        return sendOne('delivery', {
          body: bodies[0] as string,
          delaySeconds: 0,
          groupId: targetGroupId(only.target),
        });
      }
    }
    // A fan-out names several subscriptions: its tenant is the topic they share.
    const groupId = messageGroupId(topic);
    const body = packFanOut(topic, items, destinations);
    if (fitsOneMessage(body)) return sendOne('delivery', { body, delaySeconds: 0, groupId });
    const key = fanOutKey(started, publishId);
    await this.deps.fanOuts.put(key, body);
    return sendOne('delivery', {
      body: storedFanOutBody(topic, key, Buffer.byteLength(body, 'utf8')),
      delaySeconds: 0,
      groupId,
    });
  }
}
