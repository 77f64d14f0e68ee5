/**
 * A delivery worker: what one delivery function instance (or the local stack's delivery worker)
 * runs, built once from its dependencies, each provided by type (`ports.ts`). It holds the parts
 * side by side, none handed another:
 *
 * - the request path (`engine-attempts.ts`): the worker's slots, shared by jobs and backlogs;
 * - the backlogs (`backlog/`), reached by the engine through their port only;
 * - the engine (`engine.ts`): a delivery job through its phases;
 * - the endpoint handshake, the fan-out store, and the hand-over of parked ended deliveries.
 *
 * Which of these a job goes to is the job registry's (`job-registry.ts`), by the job's kind.
 */

import type { ReplayPages } from '../archive/replay';
import type {
  BacklogTickJob,
  DeliveryItem,
  DeliveryJob,
  DeliveryTarget,
  EndedJob,
  FanOutJob,
  QueuedJob,
  ReplayPageJob,
  StoredFanOutJob,
  StoreJob,
  ValidationJob,
} from '../domain/delivery';
import { METRIC, subscriptionDimensions } from '../observability/metrics';
import type { LegacyJob } from '../queue/job-codec';
import type { FanOutStore } from '../storage/fan-out-bucket';
import type { ReplaySends } from '../storage/replay-sends';
import { type BacklogSettings, Backlogs } from './backlog/backlogs';
import { NO_BACKLOG } from './backlog/port';
import type { SourcedStoreJob, StoreResult } from './backlog/store-step';
import type { BacklogSweepReport } from './backlog/sweep';
import { deliverTogether, type TogetherJob, type TogetherResult } from './deliver-together';
import { DeliveryEngine } from './engine';
import { EngineAttempts } from './engine-attempts';
import { openFanOut } from './fan-out';
import { handOffAgain } from './follow-ups';
import { type EndpointHandshake, validationKeyOf } from './handshake';
import { emptyReport, type JobReport } from './job-report';
import { type Upgraded, upgradeFanOutJob, upgradeJob } from './job-upgrade';
import { OrderedDelivery, type OrderedMessage, type OrderedOutcome, type OrderedSettings } from './ordered';
import type { DeliverySubscriptions, JobOptions, RequestPath, SettleDeps } from './ports';

/** Everything a delivery worker needs, by capability. */
export interface DeliveryWorkerDeps extends SettleDeps, DeliverySubscriptions, RequestPath {
  /**
   * Where subscriptions' backlogs are kept. `'none'` (tests, models): long waits hop on the
   * retry queue and held events ride it, and `store` and `backlog-tick` jobs are refused.
   */
  backlog: BacklogSettings | 'none';
  /** Runs validation jobs (the endpoint validation handshake). */
  handshake: Pick<EndpointHandshake, 'run'>;
  /** Reads fan-outs stored because they were too large for one message. */
  fanOuts: Pick<FanOutStore, 'get'>;
  /**
   * Where ordered delivery keeps a waiting message's progress and how it hides the message;
   * `'none'` (tests, models): `ordered` jobs are refused.
   */
  ordered: OrderedSettings | 'none';
  /**
   * Replays from topics' archives: their pages, and the parts they queued as received (so a part
   * queued twice is worked once). Absent (tests, models): `replay-page` jobs are refused.
   */
  replays?: { readonly pages: Pick<ReplayPages, 'runPage'>; readonly sends: ReplaySends };
}

export class DeliveryWorker {
  private readonly attempts: EngineAttempts;
  private readonly backlogs: Backlogs | undefined;
  private readonly engine: DeliveryEngine;
  private readonly orderedDelivery: OrderedDelivery | undefined;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.attempts = new EngineAttempts(deps);
    this.backlogs =
      deps.backlog === 'none' ? undefined : new Backlogs({ ...deps, attempts: this.attempts }, deps.backlog);
    this.engine = new DeliveryEngine({
      ...deps,
      attempts: this.attempts,
      backlog: this.backlogs ?? NO_BACKLOG,
    });
    const { ordered } = deps;
    this.orderedDelivery =
      ordered === 'none' ? undefined : new OrderedDelivery({ ...deps, attempts: this.attempts, ordered });
  }

  /**
   * Messages of the ordered queue: each group's in order, each message's events one request at a
   * time (`ordered.ts`); one outcome per message.
   */
  deliverOrdered(messages: readonly OrderedMessage[], options: JobOptions): Promise<OrderedOutcome[]> {
    if (this.orderedDelivery === undefined) throw new Error('this worker delivers no ordered events');
    return this.orderedDelivery.run(messages, options);
  }

  /** A delivery job, through the engine's phases. */
  deliver(job: DeliveryJob, options: JobOptions): Promise<JobReport> {
    return this.engine.deliver(job, options);
  }

  /** A subscription's endpoint validation handshake; a refused one is counted. */
  async validate(job: ValidationJob): Promise<JobReport> {
    const report = await this.deps.handshake.run(job);
    if (report === 'refused') {
      const { topic, subscription } = validationKeyOf(job);
      this.deps.metrics.count(
        METRIC.EndpointValidationFailCount,
        1,
        subscriptionDimensions(topic, subscription),
      );
    }
    return emptyReport();
  }

  /** One page of a replay (`archive/replay.ts`): its events queued as deliveries, the next page sent. */
  async replayPage(job: ReplayPageJob): Promise<JobReport> {
    const replays = this.deps.replays;
    if (replays === undefined) throw new Error('this worker has no replays: replay-page jobs are refused');
    const page = await replays.pages.runPage(job);
    return { ...emptyReport(), queued: page.queued };
  }

  /**
   * Which of an invocation's delivery jobs to work: all but a replay's part received in a second
   * message (the part was queued twice), each named by the message it came in.
   */
  async firstCopies(jobs: readonly TogetherJob[], messageIds: readonly string[]): Promise<boolean[]> {
    const sends = this.deps.replays?.sends;
    return Promise.all(
      jobs.map((job, index) =>
        sends === undefined || !('replayChunk' in job) || job.replayChunk === undefined
          ? true
          : sends.firstCopy(job.replayChunk, messageIds[index] ?? String(index), this.deps.clock.now()),
      ),
    );
  }

  /**
   * An invocation's delivery jobs and fan-outs together: small fan-outs opened, the due jobs of
   * each subscription merged so their events share batch requests (`deliver-together.ts`); one
   * result per message.
   */
  deliverTogether(jobs: readonly TogetherJob[], options: JobOptions): Promise<TogetherResult[]> {
    return deliverTogether(jobs, {
      clock: this.deps.clock,
      queue: this.deps.queue,
      logger: this.deps.logger,
      deliver: (job) => this.deliver(job, options),
      open: (job) =>
        openFanOut(job, {
          fanOuts: this.deps.fanOuts,
          upgrade: async (stored) => this.dropGone(await upgradeFanOutJob(stored, this.deps)),
        }),
    });
  }

  /** A fan-out's delivery jobs, worked in place when few, else queued (`fan-out.ts`). */
  async fanOut(job: FanOutJob | StoredFanOutJob, options: JobOptions): Promise<JobReport> {
    const [result] = await this.deliverTogether([job], options);
    if (result === undefined || !result.ok) throw new Error(result?.reason ?? 'the fan-out gave no result');
    return result.report;
  }

  /** Ended deliveries parked on the retry queue, handed to the dead-letter step again. */
  handOffAgain(job: EndedJob): Promise<JobReport> {
    return handOffAgain(this.deps, job);
  }

  /**
   * Stores the events of `store` jobs in their subscriptions' backlogs, many jobs at once (their
   * events share segments), and arms each backlog's timer. `sourceId` names the message a job
   * came in: the same messages stored again write the same segments.
   */
  storeJobs(jobs: readonly SourcedStoreJob[]): Promise<StoreResult> {
    return this.requireBacklogs().store(jobs);
  }

  /** One `store` job on its own. */
  storeOne(job: StoreJob): Promise<JobReport> {
    return this.requireBacklogs().storeOne(job);
  }

  /** A backlog's timer at work (`backlog/tick.ts`). */
  tick(job: BacklogTickJob, options: JobOptions): Promise<JobReport> {
    return this.requireBacklogs().tick(job, options);
  }

  /** Sends the ticks of backlogs whose wake is near (the sweeper's job, every minute). */
  sweepBacklogs(): Promise<BacklogSweepReport> {
    return this.requireBacklogs().sweep();
  }

  /**
   * Stops listening to timed-out requests, at once and from now on: a worker that is shutting
   * down (the local stack stopping) does not wait for late windows to close.
   */
  stopListening(): void {
    this.attempts.stopListening();
  }

  /**
   * A job of an earlier format, in the current one (`job-upgrade.ts`): its target built from its
   * subscription as read now. The events of a subscription that is gone are dropped here, as a
   * deleted subscription's are; `undefined` when nothing of the job is left to work. The consumer
   * shell calls this for every such job before it is worked.
   */
  async upgrade(job: LegacyJob): Promise<QueuedJob | undefined> {
    return this.dropGone(await upgradeJob(job, this.deps));
  }

  private dropGone<J extends QueuedJob>({ job, gone }: Upgraded<J>): J | undefined {
    for (const { target, items } of gone) this.dropDeleted(target, items);
    return job;
  }

  private dropDeleted(
    target: Pick<DeliveryTarget, 'topic' | 'subscription'>,
    items: readonly DeliveryItem[],
  ) {
    this.engine.dropDeleted(target, items);
  }

  private requireBacklogs(): Backlogs {
    if (this.backlogs === undefined) throw new Error('this worker keeps no backlogs');
    return this.backlogs;
  }
}
