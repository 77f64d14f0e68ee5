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
  const rule = new events.Rule(scope, BACKLOG_SWEEP_RULE_ID, {
    description: 'Gridwire: sweeps the backlogs timer index (sends the ticks of wakes due soon)',
    schedule: events.Schedule.rate(Duration.minutes(BACKLOG_SWEEP_EVERY_MINUTES)),
    targets: [
      new targets.LambdaFunction(deliveryFunction, {
        event: events.RuleTargetInput.fromObject(BACKLOG_SWEEP_EVENT),
        retryAttempts: 0,
        maxEventAge: Duration.minutes(BACKLOG_SWEEP_EVERY_MINUTES),
      }),
    ],
  });
  // The sweep is the delivery function's only asynchronous invocation: one that waited or failed
  // is not worth running again once the next is on its way.
  deliveryFunction.configureAsyncInvoke({
    retryAttempts: 0,
    maxEventAge: Duration.minutes(BACKLOG_SWEEP_EVERY_MINUTES),
  });
  const lostSweep =
    'A sweep reads the timer index afresh each minute, so the next sweep does what a failed or lost one left; keeping the lost one would only run it late. Failures show on the delivery function errors alarm.';
  Validations.of(rule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: lostSweep });
  Validations.of(deliveryFunction).acknowledge({
    id: 'Serverless-LambdaAsyncFailureDestination',
    reason: `Its only asynchronous invocation is the backlog sweep. ${lostSweep}`,
  });
  return rule;
}

/**
 * The archive sweep's schedule: the dead-letter function invoked once a day with
 * `ARCHIVE_SWEEP_EVENT`, which removes segments older than their topic's retention and the
 * archives of topics deleted, made again or no longer archived (`archive/sweep.ts`). Never tried
 * again: the next day's sweep does what a failed one left (segments are kept a day longer).
 */
export function scheduleArchiveSweep(scope: Construct, deadLetterFunction: PipelineFunction): events.Rule {
  const rule = new events.Rule(scope, ARCHIVE_SWEEP_RULE_ID, {
    description: "Gridwire: sweeps the topics' archives (removes segments past their retention)",
    schedule: events.Schedule.rate(Duration.hours(ARCHIVE_SWEEP_EVERY_HOURS)),
    targets: [
      new targets.LambdaFunction(deadLetterFunction, {
        event: events.RuleTargetInput.fromObject(ARCHIVE_SWEEP_EVENT),
        retryAttempts: 0,
        maxEventAge: Duration.hours(1),
      }),
    ],
  });
  deadLetterFunction.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.hours(1) });
  const lostSweep =
    "A sweep lists the archives afresh each day, so the next day's sweep does what a failed or lost one left. Failures show on the dead-letter function errors alarm.";
  Validations.of(rule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: lostSweep });
  Validations.of(deadLetterFunction).acknowledge({
    id: 'Serverless-LambdaAsyncFailureDestination',
    reason: `Its only asynchronous invocation is the archive sweep. ${lostSweep}`,
  });
  return rule;
}
