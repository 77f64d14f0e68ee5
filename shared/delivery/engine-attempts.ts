/**
 * The delivery engine's attempt phase (see `engine.ts` for the phases): events cut into requests
 * and each request sent through the worker's slots. Apart from the engine's job flow because this
 * is where a worker's capacity is shared: at most `concurrency` requests counting at once across
 * jobs, shared round robin by the subscriptions waiting, at most `subscriptionConcurrency` per
 * subscription within a window its endpoint's answers open, and a stalled endpoint's further
 * events held rather than queued. Every outcome goes to the health tracker. A backlog's probe and
 * drain attempt through the same slots (`EngineAttempts.attemptItems`, which the worker hands them).
 */
import { randomBytes } from 'node:crypto';
import type { AttemptResult } from '../domain/attempts';
import type { DeliveryItem } from '../domain/delivery';
import { isWebhook, type ResourceDestination, type Subscription } from '../domain/model';
import { METRIC, subscriptionDimensions } from '../observability/metrics';
import type { Clock } from '../platform/clock';
import { FairSlots } from '../platform/concurrency';
import { InProcessRateBudget } from '../storage/rate-budget';
import { EndpointAuth, EndpointAuthError } from './endpoint-auth';
import type { HealthTracker } from './health';
import { LateAnswers } from './late-answers';
import { carriesSecrets, OpenedSecrets } from './opened-secrets';
import type { AttemptHistory, DeliveryTelemetry, JobOptions, RequestPath } from './ports';
import { RateLimiter } from './rate-limiter';
import {
  buildDeliveryRequest,
  type OutgoingEvent,
  type OutgoingRequest,
  outgoingEvents,
  requestsOf,
} from './request';
import { resourceFailure } from './resource-sender';
import { batchPolicyOf } from './rules/batching';
import type { Attempted } from './rules/decide';
import { daysLeftToWarn } from './rules/endpoint-tls';
import { customHeaderValues } from './rules/headers';
import { gateOf, type HealthSignal, isProbing } from './rules/health';
import { pushesBack } from './rules/outcomes';
import type { DeliveryProfile } from './rules/profiles';
import { REDACTED, redactResult, requestCredentialsOf } from './rules/redact';
import {
  cutResourceBatches,
  messageBytesOf,
  parseResourceArn,
  resourceLimitsOf,
} from './rules/resource-destinations';
import { isResourceFailure } from './rules/resource-errors';
import { subjectOf } from './rules/resource-messages';
import { deliveryTraceparent, TRACEPARENT_HEADER } from './rules/trace-context';
import { signatureHeaders, webhookIdOf } from './signing';
import type { LateListen, WebhookRequest } from './webhook-sender';

/**
 * An endpoint that has all the requests it may have in flight and has answered none of them for
 * this long is stalled: its further events are held, not queued. Real time: the 30 s request
 * timeout is not scaled either.
 */
export const STALL_MS = 1000;
/**
 * Unanswered requests that may stop counting against `concurrency` at most (each holds a socket):
 * with the slots that count, they stay well inside Lambda's 1,024 file descriptors.
 */
export const MAX_LINGERING_REQUESTS = 512;
/** How long events refused a slot of a stalled endpoint are held. */
export const BUSY_HOLD_MS = 5000;

/** How `attemptItems` attempts a set of events. */
export interface AttemptOptions extends JobOptions {
  /** Only the first this many requests are made (a probe makes one); default all. */
  readonly maxRequests?: number;
  /** Told each request's outcomes as soon as it is over, so a caller can checkpoint mid-way. */
  readonly onAttempted?: (attempted: readonly Attempted[]) => void;
}

/**
 * What the request path needs: how requests are made, the clock, where outcomes are reported
 * (the health tracker) and where late answers are recorded (the attempt history).
 */
export interface EngineAttemptsDeps extends RequestPath, DeliveryTelemetry {
  clock: Clock;
  health: HealthTracker;
  history: AttemptHistory;
}

export class EngineAttempts {
  private readonly slots: FairSlots;
  private readonly subscriptionConcurrency: number;
  private readonly secrets: OpenedSecrets;
  private readonly rates: RateLimiter;
  private readonly auth: EndpointAuth;
  /** Listens on after timeouts and finds events a late answer delivered; none without a store. */
  private readonly late: LateAnswers | undefined;

  constructor(private readonly deps: EngineAttemptsDeps) {
    this.late =
      deps.lateAnswers === 'none'
        ? undefined
        : new LateAnswers({
            clock: deps.clock,
            store: deps.lateAnswers,
            history: deps.history,
            metrics: deps.metrics,
            logger: deps.logger,
            ...(deps.requestTimes === undefined
              ? {}
              : { timeoutMs: deps.requestTimes.timeoutMs, windowMs: deps.requestTimes.lateWindowMs }),
          });
    this.slots = new FairSlots({
      capacity: deps.concurrency,
      stallMs: STALL_MS,
      maxLingering: Math.min(8 * deps.concurrency, MAX_LINGERING_REQUESTS),
      now: deps.clock.now,
    });
    this.secrets = new OpenedSecrets(deps.sealer === 'none' ? undefined : deps.sealer);
    this.auth = deps.endpointAuth ?? new EndpointAuth({ clock: deps.clock });
    this.rates = new RateLimiter({
      clock: deps.clock,
      budget: deps.rateBudget ?? new InProcessRateBudget(),
      logger: deps.logger,
    });
    this.subscriptionConcurrency = Math.max(
      1,
      Math.min(deps.concurrency, deps.subscriptionConcurrency ?? Math.ceil(deps.concurrency / 4)),
    );
  }

  /**
   * Stops listening to timed-out requests, at once and from now on: a worker that is shutting
   * down (the local stack stopping) does not wait for late windows to close.
   */
  stopListening(): void {
    this.late?.stop();
  }

  /**
   * Attempts events the caller has already gated (TTL, probation): cuts them into requests (one
   * event each, or batches when the subscription batches, in the order given) and sends each
   * through this engine's slots, at most `cap` at once for the subscription (default its share
   * of the worker) within the window the endpoint's answers open. Every outcome is reported to
   * the health tracker, and push-back halves the window, as for any job. With
   * `options.maxRequests`, only the first that many requests are made: the events of the others
   * are left out of the result (the caller keeps them). Events a late answer to an earlier request
   * already delivered are not sent again (`answeredLate`).
   */
  async attemptItems(
    subscription: Subscription,
    profile: DeliveryProfile,
    items: readonly DeliveryItem[],
    options: AttemptOptions,
    cap: number = this.subscriptionConcurrency,
  ): Promise<Attempted[]> {
    if (items.length === 0) return [];
    const answered = (await this.late?.answeredAmong(subscription, items)) ?? new Map();
    const answeredLate: Attempted[] = [];
    const unanswered: DeliveryItem[] = [];
    for (const item of items) {
      if (answered.has(item.deliveryId)) answeredLate.push({ kind: 'answeredLate', item });
      else unanswered.push(item);
    }
    if (answeredLate.length > 0) options.onAttempted?.(answeredLate);
    if (unanswered.length === 0) return answeredLate;
    const { destination } = subscription;
    if (!isWebhook(destination)) {
      const events = outgoingEvents(subscription, unanswered);
      return [
        ...answeredLate,
        ...(await this.attemptResource(subscription, destination, profile, events, options, cap)),
      ];
    }
    const requests = requestsOf(
      subscription,
      outgoingEvents(subscription, unanswered),
      await this.secrets.customHeaders(subscription),
      await this.secrets.endpointUrl(subscription),
    );
    const made = options.maxRequests === undefined ? requests : requests.slice(0, options.maxRequests);
    const outcomes = await Promise.all(
      made.map(async (request) => {
        const attempted = await this.attempt(subscription, profile, request, options, cap);
        options.onAttempted?.(attempted);
        return attempted;
      }),
    );
    return [...answeredLate, ...outcomes.flat()];
  }

  /**
   * The request as sent: with its `traceparent` (continuing the publish request's trace when its
   * first event carries one); with a signing secret, signed now (`signing.ts`), each secret in
   * force signing it; with `auth`, its credentials (`endpoint-auth.ts`; `fresh`: a new token).
   */
  private async outgoing(
    subscription: Subscription,
    request: OutgoingRequest,
    fresh = false,
  ): Promise<WebhookRequest> {
    const built = buildDeliveryRequest(subscription, request.events, request.headers, request.url);
    const items = request.events.map((event) => event.item);
    const headers = {
      ...built.headers,
      [TRACEPARENT_HEADER]: deliveryTraceparent(items[0]?.traceparent, randomHex),
    };
    const tls = await this.secrets.tlsOptions(subscription);
    let outgoing: WebhookRequest = { ...built, headers, ...(tls === undefined ? {} : { tls }) };
    if (isWebhook(subscription.destination) && subscription.destination.signing !== undefined) {
      const now = this.deps.clock.now();
      const secrets = await this.secrets.signingSecrets(subscription, now);
      outgoing = {
        ...outgoing,
        headers: { ...headers, ...signatureHeaders(secrets, webhookIdOf(items), now, built.body) },
      };
    }
    return this.auth.authorize(subscription, outgoing, this.secrets.client(subscription), fresh);
  }

  /**
   * Sends the request, with its credentials; an endpoint that answers 401 to a request with an
   * OAuth 2.0 token gets it once more with a fresh token. Credentials that can't be had fail the
   * attempt without a request. The result's answer excerpt and error are final here, the
   * subscription's secrets left out ({@link withoutSecrets}).
   */
  private async send(
    subscription: Subscription,
    request: OutgoingRequest,
    late: LateListen | undefined,
  ): Promise<AttemptResult> {
    const startedAt = this.deps.clock.now();
    const sent: WebhookRequest[] = [];
    const outgoing = async (fresh: boolean) => {
      const made = await this.outgoing(subscription, request, fresh);
      sent.push(made);
      return made;
    };
    let result: AttemptResult;
    try {
      const made = await outgoing(false);
      this.warnOfCertificate(subscription, made.tls);
      const first = await this.deps.sender.send(made, late);
      result =
        first.delivered || first.httpStatus !== 401 || !this.auth.refreshes(subscription)
          ? first
          : await this.deps.sender.send(await outgoing(true));
    } catch (error) {
      if (!(error instanceof EndpointAuthError)) throw error;
      result = {
        delivered: false,
        outcome: 'GenericError',
        errorCode: 'EndpointAuthFailed',
        durationMs: this.deps.clock.now() - startedAt,
        error: error.message,
      };
    }
    return this.withoutSecrets(subscription, sent, result);
  }

  /** Records how many days the client certificate has left, once that is 30 or fewer. */
  private warnOfCertificate(subscription: Subscription, tls: WebhookRequest['tls']): void {
    const daysLeft = daysLeftToWarn(tls?.certificateExpiresAt, this.deps.clock.now());
    if (daysLeft === undefined) return;
    this.deps.metrics.gauge(
      METRIC.ClientCertificateDaysLeft,
      daysLeft,
      'Count',
      subscriptionDimensions(subscription.topic, subscription.name),
    );
  }

  /**
   * The result with every secret the subscription's requests carried left out of its answer
   * excerpt and error (`rules/redact.ts`): an endpoint may echo what it got, and the message log
   * keeps both. Its opened secrets, and the credentials `auth` put on the requests `sent` (a
   * token, a signature). Nothing is done for a subscription without secrets, or a result without
   * text. Should its secrets not be had, the excerpt is dropped and the error withheld: nothing
   * is stored unredacted.
   */
  private async withoutSecrets(
    subscription: Subscription,
    sent: readonly WebhookRequest[],
    result: AttemptResult,
  ): Promise<AttemptResult> {
    if ((result.response === undefined && result.error === undefined) || !carriesSecrets(subscription)) {
      return result;
    }
    const opened = await this.secrets.known(subscription).catch(() => undefined);
    if (opened === undefined) {
      const { response: _response, ...rest } = result;
      return result.error === undefined ? rest : { ...rest, error: REDACTED };
    }
    const made = isWebhook(subscription.destination) && subscription.destination.auth !== undefined;
    const credentials = made ? sent.flatMap((request) => requestCredentialsOf(request.headers)) : [];
    return redactResult(result, [...opened, ...credentials]);
  }

  /**
   * Runs one request's `send` within the rate limit, a slot of this worker and the endpoint's
   * gate, all of its events held, deferred or ended as those say; `send` gets the time the
   * request starts and answers each event's outcome.
   */
  private async gated(
    subscription: Subscription,
    items: readonly DeliveryItem[],
    options: JobOptions,
    cap: number,
    send: (startedAt: number) => Promise<Attempted[]>,
  ): Promise<Attempted[]> {
    const { clock, health } = this.deps;
    const each = (outcome: (item: DeliveryItem) => Attempted) => items.map(outcome);
    const key = slotKeyOf(subscription);
    // A rate-limited endpoint's budget comes first, so a request waiting for it holds no slot.
    const limit = subscription.destination.maxDeliveriesPerSecond;
    let permit =
      limit === undefined ? undefined : await this.rates.take(subscription.topic, subscription.name, limit);
    if (permit?.kind === 'hold') {
      const until = permit.until;
      return each((item) => ({ kind: 'held', item, until, reason: 'rate' }));
    }
    // While recovering from a probation, one request at a time per worker finds out whether it answers again.
    const probing = isProbing(health.peek(subscription), clock.now());
    const release = await this.slots.acquire(key, probing ? 1 : cap);
    if (release === undefined) {
      // Rounded to the second, so the events a job holds at about the same moment stay together.
      const until = Math.ceil((clock.now() + BUSY_HOLD_MS) / 1000) * 1000;
      return each((item) => ({ kind: 'held', item, until, reason: 'busy' }));
    }
    try {
      // Waiting for the slot took the request past its second: it needs budget of the one it is in.
      while (limit !== undefined && permit?.kind === 'go' && !this.rates.valid(permit)) {
        permit = await this.rates.take(subscription.topic, subscription.name, limit);
        if (permit.kind === 'hold') {
          const until = permit.until;
          return each((item) => ({ kind: 'held', item, until, reason: 'rate' }));
        }
      }
      const startedAt = clock.now();
      if (startedAt >= options.attemptDeadline) return each((item) => ({ kind: 'deferred', item }));
      // An outcome of this job (or another on this worker) may have put the endpoint on probation.
      const view = health.peek(subscription);
      const gate = view === undefined ? { kind: 'open' as const } : gateOf(view, startedAt);
      if (gate.kind === 'hold') {
        // A pause's events are due at once (its backlog holds them); a queue hop waits once more.
        return each((item) => ({ kind: 'held', item, until: gate.dueAt ?? gate.until, reason: 'probation' }));
      }
      if (gate.kind === 'disabled') return each((item) => ({ kind: 'disabled', item }));
      return await send(startedAt);
    } finally {
      release();
    }
  }

  /** One webhook request: every event in it gets the request's outcome. */
  private attempt(
    subscription: Subscription,
    profile: DeliveryProfile,
    request: OutgoingRequest,
    options: JobOptions,
    cap: number,
  ): Promise<Attempted[]> {
    const { clock, health } = this.deps;
    const items = request.events.map((event) => event.item);
    return this.gated(subscription, items, options, cap, async (startedAt) => {
      const late = this.late?.listen(
        subscription,
        profile,
        items,
        startedAt,
        options.listenUntil,
        options.listens,
      );
      // Not listened to after all (answered in time, no room, or the send threw): it is over.
      const result = await this.send(subscription, request, late).catch((error: unknown) => {
        late?.ended();
        throw error;
      });
      if (late !== undefined && result.listeningUntil === undefined) late.ended();
      health.observe(subscription, profile, signalOf(profile, startedAt, clock.now(), result));
      if (!result.delivered && pushesBack(result.outcome)) this.slots.pushBack(slotKeyOf(subscription));
      return items.map((item) => ({ kind: 'attempted', item, startedAt, result }));
    });
  }

  /**
   * Events to an AWS resource: one message each, cut into the service's calls by its limits; a
   * message too large for it ends without a call (not retried). Each call goes through the rate
   * limit, the slots and the gate as a webhook request does, and each message gets its own result.
   */
  private async attemptResource(
    subscription: Subscription,
    destination: ResourceDestination,
    profile: DeliveryProfile,
    events: readonly OutgoingEvent[],
    options: AttemptOptions,
    cap: number,
  ): Promise<Attempted[]> {
    const { clock, health } = this.deps;
    const custom = await this.secrets.customHeaders(subscription);
    const ref = parseResourceArn(destination.endpointType, destination.resourceArn);
    // A FIFO destination groups messages by the event's subject; a stream keys records by it.
    const keyed = (!('problem' in ref) && ref.fifo) || destination.endpointType === 'AwsKinesisStream';
    const messages = events.map((event) => {
      const attributes = custom.length === 0 ? {} : customHeaderValues(custom, event.text);
      const groupId = keyed ? subjectOf(event.item.eventJson) : undefined;
      return {
        item: event.item,
        message: {
          deliveryId: event.item.deliveryId,
          body: event.text,
          attributes,
          ...(groupId === undefined ? {} : { groupId }),
        },
        bytes: messageBytesOf(event.text, attributes),
      };
    });
    const limits = resourceLimitsOf(destination, batchPolicyOf(destination).maxEventsPerBatch);
    const { batches, tooLarge } = cutResourceBatches(messages, limits);
    const now = clock.now();
    const ended: Attempted[] = tooLarge.map(({ item, bytes }) => ({
      kind: 'attempted',
      item,
      startedAt: now,
      result: resourceFailure(
        'PayloadTooLarge',
        `the event is ${bytes} bytes; ${destination.endpointType} takes at most ${limits.messageBytes}`,
        0,
      ),
    }));
    if (ended.length > 0) options.onAttempted?.(ended);
    const made = options.maxRequests === undefined ? batches : batches.slice(0, options.maxRequests);
    const sender = this.deps.resources;
    const outcomes = await Promise.all(
      made.map(async (batch) => {
        const items = batch.map((entry) => entry.item);
        const attempted = await this.gated(subscription, items, options, cap, async (startedAt) => {
          const results = await sender.send(
            destination,
            batch.map((entry) => entry.message),
          );
          const failed = results.find((result) => !result.delivered);
          health.observe(
            subscription,
            profile,
            signalOf(profile, startedAt, clock.now(), failed ?? (results[0] as AttemptResult)),
          );
          if (failed !== undefined && pushesBack(failed.outcome))
            this.slots.pushBack(slotKeyOf(subscription));
          return batch.map((entry, index) => ({
            kind: 'attempted' as const,
            item: entry.item,
            startedAt,
            result: results[index] as AttemptResult,
          }));
        });
        options.onAttempted?.(attempted);
        return attempted;
      }),
    );
    return [...ended, ...outcomes.flat()];
  }
}

/** The key of a subscription's slots. */
const slotKeyOf = (subscription: Subscription) =>
  `${subscription.topic.toLowerCase()}/${subscription.name.toLowerCase()}`;

const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/** What an attempt tells the health rules; `Retry-After` (429/503 only) in this profile's time. */
function signalOf(
  profile: DeliveryProfile,
  at: number,
  endedAt: number,
  result: AttemptResult,
): HealthSignal {
  if (result.delivered) return { at, endedAt, outcome: 'Delivered' };
  const asksToWait =
    (result.httpStatus === 429 || result.httpStatus === 503) && result.retryAfterSeconds !== undefined;
  return {
    at,
    endedAt,
    outcome: result.outcome ?? 'GenericError',
    ...(isResourceFailure(result) ? { resourceError: true } : {}),
    ...(asksToWait
      ? { retryAfterMs: ((result.retryAfterSeconds as number) * 1000) / profile.timeScale }
      : {}),
  };
}
