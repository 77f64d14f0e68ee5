/**
 * SQS consumer for the delivery, retry and backlog queues: runs each job by its step in the job
 * registry (`shared/delivery/job-registry.ts`) on the delivery worker, in the consumer shell
 * (`shared/lambda/job-consumer.ts`), which reports the records that could not be finished, so
 * only those come back (after the visibility timeout). Invoked on a schedule with a
 * `backlog-sweep` event instead, it sends the ticks of backlogs whose wake is near.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ArchiveForwarding, archiveForwarding } from '../shared/archive/forward';
import { readConfig } from '../shared/config/runtime';
import { kindsTakenBy } from '../shared/delivery/job-registry';
import { invocationLimits, LATE_ANSWER_WINDOW_MS } from '../shared/delivery/rules/late-answer';
import type { DeliveryWorker } from '../shared/delivery/worker';
import { type BacklogSweepJob, backlogSweepJobSchema } from '../shared/domain/delivery';
import { createJobConsumer, createSweepHandler, registryStep } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildDeliveryWorker, createObservability, type Observability } from '../shared/lambda/wiring';
import { queueOf } from '../shared/lambda/wiring/runtime';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';

/** Time kept free at the end of an invocation for recording late answers and queueing follow-up jobs. */
export const FINISHING_MARGIN_MS = 5000;

/**
 * The invocation answers SQS at the latest this long before its timeout, its late listens over or
 * not: a late answer still being recorded then is given up (its event is retried, at least once
 * either way) rather than Lambda stopping the invocation and handing its whole batch out again.
 */
export const ANSWER_MARGIN_MS = 1000;

/**
 * The lengths an invocation plans with: the late window its requests are listened to for, the
 * finishing margin and the answer margin. Real time on AWS (`INVOCATION_TIMES`); the local
 * stack's `requestTimeScale` shrinks them, with the function timeout, for tests.
 */
export interface InvocationTimes {
  readonly lateWindowMs: number;
  readonly finishingMarginMs: number;
  readonly answerMarginMs: number;
}

export const INVOCATION_TIMES: InvocationTimes = {
  lateWindowMs: LATE_ANSWER_WINDOW_MS,
  finishingMarginMs: FINISHING_MARGIN_MS,
  answerMarginMs: ANSWER_MARGIN_MS,
};

export interface DeliveryHandlerDeps {
  worker: Pick<
    DeliveryWorker,
    | 'deliver'
    | 'deliverTogether'
    | 'validate'
    | 'fanOut'
    | 'handOffAgain'
    | 'storeJobs'
    | 'storeOne'
    | 'tick'
    | 'sweepBacklogs'
    | 'upgrade'
    | 'deliverOrdered'
    | 'replayPage'
    | 'firstCopies'
  >;
  observability: Observability;
  /** Where the archive copies its messages carry go (none: they stay on the messages, unread). */
  archive?: ArchiveForwarding;
  clock?: Clock;
  /** The lengths its invocations plan with (default `INVOCATION_TIMES`, as on AWS). */
  times?: InvocationTimes;
}

/**
 * No attempt starts unless its late window (3 minutes from its start) still ends before the
 * finishing margin: whatever moment of the invocation a request starts in, a timeout of it is
 * listened to for the whole window (`invocationLimits`, `shared/delivery/rules/late-answer.ts`).
 * With the function's 270 s, attempts start in the first 85 s, as they did with 120 s and room
 * for the 30 s timeout only.
 */
export const attemptDeadline = (
  now: number,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  times: InvocationTimes = INVOCATION_TIMES,
): number => invocationLimits(now + context.getRemainingTimeInMillis(), times).attemptDeadline;

/**
 * Requests that timed out are listened to for a late answer until the invocation has only the
 * finishing margin left (`shared/delivery/rules/late-answer.ts`), so it records one in time.
 */
export const listenUntil = (
  now: number,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  times: InvocationTimes = INVOCATION_TIMES,
): number => invocationLimits(now + context.getRemainingTimeInMillis(), times).listenUntil;

/**
 * Resolves once every listen is over, or `answerMarginMs` before the invocation's timeout,
 * whichever comes first. Listens end by the finishing margin; only a late answer's recording can
 * run past it, and it is not waited for to the point of Lambda stopping the invocation.
 */
async function listensOver(
  listens: readonly Promise<void>[],
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  answerMarginMs: number,
): Promise<void> {
  if (listens.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const cutOff = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, context.getRemainingTimeInMillis() - answerMarginMs));
  });
  try {
    await Promise.race([Promise.all(listens), cutOff]);
  } finally {
    clearTimeout(timer);
  }
}

/** The job kinds the delivery function takes, from the job registry. */
export const DELIVERY_JOB_KINDS = kindsTakenBy('delivery');

/** What the delivery function is invoked with: a batch of SQS messages, or the scheduled sweep. */
export type DeliveryFunctionEvent = SQSEvent | BacklogSweepJob;

/** The delivery function's handler (a sweep answers nothing). */
export type DeliveryFunctionHandler = (
  event: DeliveryFunctionEvent,
  context: Context,
) => Promise<SQSBatchResponse | undefined>;

const isSweep = (event: DeliveryFunctionEvent): event is BacklogSweepJob =>
  backlogSweepJobSchema.safeParse(event).success;

/**
 * Each job by its step, all of the batch at once (they share the worker's request slots; `store`
 * jobs are stored together); a job that could not be finished is retried later.
 */
export function createDeliveryHandler({
  worker,
  observability,
  archive,
  clock = systemClock,
  times = INVOCATION_TIMES,
}: DeliveryHandlerDeps): DeliveryFunctionHandler {
  const consumer = createJobConsumer({
    observability,
    // The archive copies the publishes' messages carry go on to the archive queue first.
    ...(archive === undefined ? {} : { archive }),
    // Jobs queued before a deploy that changed the format are worked too (`job-upgrade.ts`).
    upgrade: (job) => worker.upgrade(job),
    step: registryStep('delivery', (context) => {
      const now = clock.now();
      // Requests of this invocation that timed out may still be answered: it listens until each
      // late window closes, 3 minutes after its request started (which is before the finishing
      // margin: no request starts later). Only its own: where invocations share a worker (the
      // local stack), none waits on another's. The jobs are settled (their follow-ups queued)
      // before; their messages stay hidden while it listens, and are deleted when it answers.
      const listens: Promise<void>[] = [];
      return {
        worker,
        options: {
          attemptDeadline: attemptDeadline(now, context, times),
          listenUntil: listenUntil(now, context, times),
          listens,
        },
        settled: () => listensOver(listens, context, times.answerMarginMs),
      };
    }),
  });
  const sweeper = createSweepHandler<BacklogSweepJob>(observability, 'backlog sweep', () =>
    worker.sweepBacklogs(),
  );
  return (event, context) => (isSweep(event) ? sweeper(event, context) : consumer(event, context));
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('delivery', runtime.config);
  return createDeliveryHandler({
    worker: buildDeliveryWorker(runtime, observability),
    observability,
    archive: archiveForwarding(queueOf(runtime, ['archive'])),
  });
});
