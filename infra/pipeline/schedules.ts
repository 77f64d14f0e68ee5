import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { ARCHIVE_SWEEP_EVENT, ARCHIVE_SWEEP_EVERY_HOURS } from '../../shared/archive/sweep';
import { BACKLOG_SWEEP_EVENT, BACKLOG_SWEEP_EVERY_MINUTES } from '../../shared/queue/backlog-sweep';
import type { PipelineFunction } from '../pipeline-function';

/** Construct id of the rule that sweeps the backlogs' timer index. */
export const BACKLOG_SWEEP_RULE_ID = 'BacklogSweepSchedule';

/** Construct id of the rule that sweeps the topics' archives. */
export const ARCHIVE_SWEEP_RULE_ID = 'ArchiveSweepSchedule';

/** What tells one sweep's schedule from another's. */
interface SweepSchedule {
  /** The rule's description. */
  description: string;
  /** How often it runs. */
  every: Duration;
  /** The event the function is invoked with. */
  event: object;
  /** How long an invocation may wait before it is dropped. */
  maxEventAge: Duration;
  /** The sweep, in words, for the acknowledged findings (`the backlog sweep`). */
  sweep: string;
  /** Why a failed or lost sweep is not worth keeping. */
  lostSweep: string;
}

/**
 * A rule invoking `fn` every so often with a sweep's event. A sweep is never tried again, neither
 * by EventBridge nor by Lambda: the next one does what a failed or lost one left. It is the
 * function's only asynchronous invocation, so the function's own async settings say the same;
 * the findings about a dead-letter queue and a failure destination are acknowledged with why.
 */
function scheduleSweep(
  scope: Construct,
  id: string,
  fn: PipelineFunction,
  sweep: SweepSchedule,
): events.Rule {
  const rule = new events.Rule(scope, id, {
    description: sweep.description,
    schedule: events.Schedule.rate(sweep.every),
    targets: [
      new targets.LambdaFunction(fn, {
        event: events.RuleTargetInput.fromObject(sweep.event),
        retryAttempts: 0,
        maxEventAge: sweep.maxEventAge,
      }),
    ],
  });
  fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: sweep.maxEventAge });
  Validations.of(rule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: sweep.lostSweep });
  Validations.of(fn).acknowledge({
    id: 'Serverless-LambdaAsyncFailureDestination',
    reason: `Its only asynchronous invocation is ${sweep.sweep}. ${sweep.lostSweep}`,
  });
  return rule;
}

/**
 * The backlog sweep's schedule: the delivery function invoked every minute with
 * `BACKLOG_SWEEP_EVENT`, which sends the ticks of backlogs whose wake is near (see
 * `BacklogTick.sweep`). It runs whether or not new events go to backlogs, so the backlogs left
 * are still woken and drained.
 *
 * A sweep is never tried again, neither by EventBridge nor by Lambda: each one reads the timer
 * index afresh, so the next one, a minute later, does whatever a failed or lost one left (a
 * wake's tick goes out a minute later). A failure shows on the delivery function's errors alarm.
 */
export function scheduleBacklogSweep(scope: Construct, deliveryFunction: PipelineFunction): events.Rule {
  return scheduleSweep(scope, BACKLOG_SWEEP_RULE_ID, deliveryFunction, {
    description: 'Gridwire: sweeps the backlogs timer index (sends the ticks of wakes due soon)',
    every: Duration.minutes(BACKLOG_SWEEP_EVERY_MINUTES),
    event: BACKLOG_SWEEP_EVENT,
    // One that waited or failed is not worth running again once the next is on its way.
    maxEventAge: Duration.minutes(BACKLOG_SWEEP_EVERY_MINUTES),
    sweep: 'the backlog sweep',
    lostSweep:
      'A sweep reads the timer index afresh each minute, so the next sweep does what a failed or lost one left; keeping the lost one would only run it late. Failures show on the delivery function errors alarm.',
  });
}

/**
 * The archive sweep's schedule: the dead-letter function invoked once a day with
 * `ARCHIVE_SWEEP_EVENT`, which removes segments older than their topic's retention and the
 * archives of topics deleted, made again or no longer archived (`archive/sweep.ts`). Never tried
 * again: the next day's sweep does what a failed one left (segments are kept a day longer).
 */
export function scheduleArchiveSweep(scope: Construct, deadLetterFunction: PipelineFunction): events.Rule {
  return scheduleSweep(scope, ARCHIVE_SWEEP_RULE_ID, deadLetterFunction, {
    description: "Gridwire: sweeps the topics' archives (removes segments past their retention)",
    every: Duration.hours(ARCHIVE_SWEEP_EVERY_HOURS),
    event: ARCHIVE_SWEEP_EVENT,
    maxEventAge: Duration.hours(1),
    sweep: 'the archive sweep',
    lostSweep:
      "A sweep lists the archives afresh each day, so the next day's sweep does what a failed or lost one left. Failures show on the dead-letter function errors alarm.",
  });
}
