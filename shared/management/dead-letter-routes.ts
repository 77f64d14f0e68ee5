/**
 * The dead-letter routes of a subscription (list, show a blob, replay), for classic and namespace
 * subscriptions alike: only how the subscription is found differs.
 */
import { jsonResult } from '../http/api-gateway';
import { badRequest } from '../http/errors';
import { admitCall, REPLAY_LIMIT } from './call-limits';
import {
  blobDocumentText,
  DeadLetterService,
  listDocument,
  parseReplayRequest,
  parseTime,
  parseWindow,
  replayDocument,
} from './dead-letters';
import type { CallLimitDeps, ClockDeps, DeadLetterDeps, IdDeps, MetricsDeps, QueueDeps } from './deps';
import { optionalBody, textResult } from './http-helpers';
import type { Operations, SubscriptionFinder } from './operation';

/**
 * What the dead-letter routes use: the bucket and replay claims, the queue replayed events go to,
 * the time, ids, the replay count and the per-subscription limit on replay calls.
 */
export type DeadLetterRouteDeps = DeadLetterDeps &
  QueueDeps &
  ClockDeps &
  IdDeps &
  MetricsDeps &
  CallLimitDeps;

/** The dead-letter service over the routes' dependencies (also bulk recovery's). */
export const deadLetterService = (deps: DeadLetterRouteDeps) =>
  new DeadLetterService({
    bucket: deps.deadLetterBucket,
    ...(deps.namedDeadLetterBucket === undefined ? {} : { namedBucket: deps.namedDeadLetterBucket }),
    queue: deps.queue,
    clock: deps.clock,
    newId: deps.newId,
    metrics: deps.metrics,
    claims: deps.replayClaims,
  });

/**
 * `GET <subscription>/deadLetters`, `GET .../deadLetters/blob?key=` and `POST .../deadLetters/replay`
 * (a few calls a minute per subscription: `REPLAY_LIMIT`).
 */
export function deadLetterOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & DeadLetterRouteDeps> {
  return {
    [`GET ${subscriptionPath}/deadLetters`]: async (event, deps) => {
      const query = event.queryStringParameters ?? {};
      const window = parseWindow({ since: query.since, until: query.until });
      const after = parseTime('page', query.page);
      const subscription = await find(event, deps);
      const page = await deadLetterService(deps).listPage(
        subscription,
        window,
        after === undefined ? {} : { after },
      );
      return jsonResult(200, listDocument(page.entries, page.nextPage));
    },
    [`GET ${subscriptionPath}/deadLetters/blob`]: async (event, deps) => {
      const key = event.queryStringParameters?.key;
      if (key === undefined || key === '') {
        throw badRequest('key: the query parameter is required (a blob key from the dead-letter list).');
      }
      const subscription = await find(event, deps);
      // Built as text, so each record is exactly as stored.
      return textResult(200, blobDocumentText(await deadLetterService(deps).show(subscription, key)));
    },
    [`POST ${subscriptionPath}/deadLetters/replay`]: async (event, deps) => {
      const request = parseReplayRequest(optionalBody(event));
      // Strongly consistent: replayed jobs carry the subscription's current uid and version.
      const subscription = await find(event, deps, { consistent: true });
      await admitCall(deps.callBudget, REPLAY_LIMIT, subscription, deps.clock.now());
      return jsonResult(200, replayDocument(await deadLetterService(deps).replay(subscription, request)));
    },
  };
}
