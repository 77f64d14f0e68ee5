/**
 * The dead-letter routes of a subscription (list, show a blob, replay), for classic and namespace
 * subscriptions alike: only how the subscription is found differs.
 */
import type { Subscription } from '../domain/model';
import { type HttpEvent, jsonResult } from '../http/api-gateway';
import { badRequest } from '../http/errors';
import type { ReadOptions } from '../storage/table';
import { admitCall, REPLAY_LIMIT } from './call-limits';
import { type ManagementDeps, type Operation, optionalBody, textResult } from './common';
import {
  blobDocumentText,
  DeadLetterService,
  listDocument,
  parseReplayRequest,
  parseTime,
  parseWindow,
  replayDocument,
} from './dead-letters';

const deadLetters = (deps: ManagementDeps) =>
  new DeadLetterService({
    bucket: deps.deadLetterBucket,
    queue: deps.queue,
    clock: deps.clock,
    newId: deps.newId,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    ...(deps.replayClaims === undefined ? {} : { claims: deps.replayClaims }),
  });

/** Finds the route's subscription (404 when it does not exist). */
export type SubscriptionFinder = (
  event: HttpEvent,
  deps: ManagementDeps,
  options?: ReadOptions,
) => Promise<Subscription>;

/**
 * `GET <subscription>/deadLetters`, `GET .../deadLetters/blob?key=` and `POST .../deadLetters/replay`
 * (a few calls a minute per subscription: `REPLAY_LIMIT`).
 */
export function deadLetterOperations(
  subscriptionPath: string,
  find: SubscriptionFinder,
): Record<string, Operation> {
  return {
    [`GET ${subscriptionPath}/deadLetters`]: async (event, deps) => {
      const query = event.queryStringParameters ?? {};
      const window = parseWindow({ since: query.since, until: query.until });
      const after = parseTime('page', query.page);
      const subscription = await find(event, deps);
      const page = await deadLetters(deps).listPage(
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
      return textResult(200, blobDocumentText(await deadLetters(deps).show(subscription, key)));
    },
    [`POST ${subscriptionPath}/deadLetters/replay`]: async (event, deps) => {
      const request = parseReplayRequest(optionalBody(event));
      // Strongly consistent: replayed jobs carry the subscription's current uid and version.
      const subscription = await find(event, deps, { consistent: true });
      await admitCall(deps.callBudget, REPLAY_LIMIT, subscription, deps.clock.now());
      return jsonResult(200, replayDocument(await deadLetters(deps).replay(subscription, request)));
    },
  };
}
