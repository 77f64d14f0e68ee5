/**
 * Middy middlewares shared by the handlers.
 */

import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { errorResult, type HttpEvent, type HttpResult } from '../http/api-gateway';
import { ApiError, dependencyUnavailable, isDependencyFailure } from '../http/errors';
import { type CompiledRoute, isFunctionUrlEvent, routeFunctionUrlEvent } from '../http/routes';
import type { LoggerLike } from '../observability/logging';
import {
  METRIC,
  type MetricBuffer,
  type MetricFlusher,
  type MetricPoint,
  VALUES_PER_RECORD,
} from '../observability/metrics';

/**
 * Powertools' Lambda context (request id, cold start, function) on every line the invocation
 * logs; it writes no line of its own. The event is never logged, whatever
 * `POWERTOOLS_LOGGER_LOG_EVENT` says: publish requests carry topic keys and SAS tokens in their
 * headers, and a line per invocation holding the whole event would be billed at its full size.
 */
export const logContext = (logger: Logger) => injectLambdaContext(logger, { logEvent: false });

/** The answer to a request a dependency's failure stopped: the caller may send it again. */
export const DEPENDENCY_UNAVAILABLE_MESSAGE =
  'A service this request needs (the table, queue or bucket) is unavailable or throttling. Send the request again after the time in Retry-After.';

/**
 * Turns `ApiError`s into their HTTP answers; a dependency that is down, unreachable or
 * throttling into a 503 with `Retry-After`; and anything else into a logged 500 that says
 * nothing about internals.
 */
export const httpErrors = (logger: LoggerLike): MiddlewareObj<HttpEvent, HttpResult, Error, Context> => ({
  onError: async (request) => {
    const error = request.error;
    if (error instanceof ApiError) {
      request.response = errorResult(error);
      return;
    }
    if (isDependencyFailure(error)) {
      logger.warn('a dependency is unavailable', {
        error: error?.message,
        errorName: error?.name,
        route: request.event.routeKey,
      });
      request.response = errorResult(dependencyUnavailable(DEPENDENCY_UNAVAILABLE_MESSAGE));
      return;
    }
    logger.error('unhandled error', {
      error: error?.message,
      stack: error?.stack,
      route: request.event.routeKey,
    });
    request.response = errorResult(
      new ApiError(500, 'InternalServerError', 'The request failed unexpectedly; it has been logged.'),
    );
  },
});

/**
 * Answers a publish request gives only after the caller proved it may publish to the topic: a
 * 401 is also the answer for a topic that does not exist, a 404 names no topic that exists, and
 * an unexpected failure may come before either is known.
 */
const PAST_AUTHENTICATION: ReadonlySet<string> = new Set([
  'BadRequest',
  'PayloadTooLarge',
  'ServiceUnavailable',
]);

/** A dimension value from a code: anything but a plain word is `Other` (values are series). */
const codeValue = (code: string | undefined): string | undefined =>
  code !== undefined && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(code) ? code : undefined;

/**
 * `ErrorType` and `Error` of a failed publish request: the error class of the answer
 * (`BadRequest`, `Unauthorized`, `NotFound`, `PayloadTooLarge`, `ServiceUnavailable`,
 * `InternalServerError`...) and its detail code (`InputJsonInvalid`, `InvalidContentType`,
 * `TooManyEvents`...), or the class again when the answer has no detail.
 */
export function publishFailureDimensions(error: unknown): { ErrorType: string; Error: string } {
  if (!(error instanceof ApiError)) {
    // Before authentication (the topic could not be read): not a per-topic series.
    return isDependencyFailure(error)
      ? { ErrorType: 'DependencyUnavailable', Error: 'DependencyUnavailable' }
      : { ErrorType: 'InternalServerError', Error: 'InternalServerError' };
  }
  const errorType = codeValue(error.code) ?? 'Other';
  return { ErrorType: errorType, Error: codeValue(error.details[0]?.code) ?? errorType };
}

/**
 * Counts each failed publish request once in `PublishFailCount` (by `ErrorType` and `Error`, see
 * `publishFailureDimensions`). A refused request is refused whole, before its events may even
 * parse, so requests are counted, not events. The per-topic series takes only failures of
 * callers that got past authentication: anyone can name any topic, and each name would be a
 * billed series. Use it before `httpErrors`, after `flushMetrics`, so the count is flushed.
 */
export const countPublishFailures = (
  buffer: MetricBuffer,
  topicOf: (event: HttpEvent) => string | undefined,
): MiddlewareObj<HttpEvent, HttpResult, Error, Context> => ({
  onError: async (request) => {
    const dimensions = publishFailureDimensions(request.error);
    const topic = PAST_AUTHENTICATION.has(dimensions.ErrorType) ? topicOf(request.event) : undefined;
    buffer.count(METRIC.PublishFailCount, 1, {
      ...dimensions,
      ...(topic === undefined ? {} : { Topic: topic }),
    });
  },
});

/**
 * Routes a request that came through a Lambda function URL (`routeKey` `$default`, the path
 * only) to one of `routes`, as the HTTP API routes its own, so the handler and the other
 * middlewares see the same event from either front door; one no route takes is a 404 (see
 * `routeFunctionUrlEvent`). Requests from the HTTP API pass unchanged.
 */
export const routeFunctionUrlRequests = (
  routes: readonly CompiledRoute[],
  refusedHere: Parameters<typeof routeFunctionUrlEvent>[2] = [],
): MiddlewareObj<HttpEvent, HttpResult, Error, Context> => ({
  before: async (request) => {
    if (isFunctionUrlEvent(request.event)) {
      request.event = routeFunctionUrlEvent(request.event, routes, refusedHere);
    }
  },
});

type Dimensions = MetricPoint['dimensions'];

/** A dimension set as text, the same whatever order its dimensions were added in. */
const dimensionsKey = (dimensions: Dimensions): string =>
  JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b)));

/** One metric's values, and the dimension sets they were counted under. */
interface Series {
  name: MetricPoint['name'];
  unit: MetricPoint['unit'];
  values: readonly number[];
  dimensionSets: Dimensions[];
}

/** Whether two dimension sets can describe one record: no dimension with two values. */
const agree = (a: Dimensions, b: Dimensions) =>
  Object.entries(a).every(([key, value]) => !(key in b) || b[key] === value);

/**
 * Splits dimension sets into groups that can share a record: every two in a group agree, and none
 * is there twice (the same values counted twice under one set must be written twice).
 */
function recordGroups(dimensionSets: readonly Dimensions[]): Dimensions[][] {
  const groups: Dimensions[][] = [];
  for (const dimensions of dimensionSets) {
    const key = dimensionsKey(dimensions);
    const group = groups.find((candidate) =>
      candidate.every((other) => agree(other, dimensions) && dimensionsKey(other) !== key),
    );
    if (group === undefined) groups.push([dimensions]);
    else group.push(dimensions);
  }
  return groups;
}

/**
 * Emits buffered metric points through Powertools Metrics as few EMF records as say the same: a
 * metric counted with the same values under nested dimension sets (a topic's and the stack's, as
 * one publish counts them) is written once, in a record that names every one of those sets, which
 * CloudWatch turns into the same series as one record per set. Metrics with the same sets share a
 * record; a metric with more values than a record takes is written per set, cut into records.
 */
export function publishMetricPoints(points: readonly MetricPoint[], metrics: Metrics): void {
  const series = new Map<string, Series>();
  for (const point of points) {
    const key = `${point.name}\n${point.unit}\n${JSON.stringify(point.values)}`;
    const found = series.get(key);
    if (found === undefined) {
      series.set(key, {
        name: point.name,
        unit: point.unit,
        values: point.values,
        dimensionSets: [point.dimensions],
      });
    } else {
      found.dimensionSets.push(point.dimensions);
    }
  }
  const records = new Map<string, { dimensionSets: Dimensions[]; series: Series[] }>();
  const long: MetricPoint[] = [];
  for (const one of series.values()) {
    if (one.values.length > VALUES_PER_RECORD) {
      for (const dimensions of one.dimensionSets) {
        long.push({ name: one.name, unit: one.unit, values: [...one.values], dimensions });
      }
      continue;
    }
    for (const group of recordGroups(one.dimensionSets)) {
      const key = JSON.stringify(group.map(dimensionsKey).sort());
      const record = records.get(key) ?? { dimensionSets: group, series: [] };
      record.series.push(one);
      records.set(key, record);
    }
  }
  for (const record of records.values()) {
    for (const dimensions of record.dimensionSets) metrics.addDimensions({ ...dimensions });
    for (const one of record.series) {
      for (const value of one.values) metrics.addMetric(one.name, one.unit, value);
    }
    metrics.publishStoredMetrics();
  }
  publishPerDimensionSet(long, metrics);
}

/** One record per dimension set, cut before a metric reaches the values a record takes. */
function publishPerDimensionSet(points: readonly MetricPoint[], metrics: Metrics): void {
  const byDimensions = new Map<string, MetricPoint[]>();
  for (const point of points) {
    const key = dimensionsKey(point.dimensions);
    byDimensions.set(key, [...(byDimensions.get(key) ?? []), point]);
  }
  for (const group of byDimensions.values()) {
    const first = group[0];
    if (first === undefined) continue;
    let valuesInRecord = new Map<string, number>();
    metrics.addDimensions({ ...first.dimensions });
    for (const point of group) {
      for (const value of point.values) {
        const stored = valuesInRecord.get(point.name) ?? 0;
        if (stored === VALUES_PER_RECORD) {
          metrics.publishStoredMetrics();
          metrics.addDimensions({ ...first.dimensions });
          valuesInRecord = new Map();
        }
        metrics.addMetric(point.name, point.unit, value);
        valuesInRecord.set(point.name, (valuesInRecord.get(point.name) ?? 0) + 1);
      }
    }
    metrics.publishStoredMetrics();
  }
}

/**
 * Tells the function's `MetricFlusher` when the handler finishes, successfully or not: the
 * invocation's metric points are written then, or kept for a later invocation (`everyMs`).
 */
export const flushMetrics = (flusher: MetricFlusher): MiddlewareObj => {
  const ended = async () => flusher.invocationEnded();
  return { after: ended, onError: ended };
};

/**
 * A Lambda handler built on first use: configuration is read and clients are created once per
 * cold start, and importing the module (the local stack, tests) has no side effects.
 */
export function lazyHandler<E, R>(build: () => (event: E, context: Context) => Promise<R>) {
  let built: ((event: E, context: Context) => Promise<R>) | undefined;
  return (event: E, context: Context): Promise<R> => {
    built ??= build();
    return built(event, context);
  };
}
