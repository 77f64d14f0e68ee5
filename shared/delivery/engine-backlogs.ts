/**
 * What a delivery engine does with subscriptions' backlogs: where its events go instead of the
 * retry queue (a wait too long to hop, an unhealthy or draining endpoint: `storeOrQueue`), and the
 * backlog's own work it takes on (`store` jobs, `backlog-tick` jobs, the sweep), through the store
 * step and the tick built over the engine's own dependencies and request path.
 */
import type {
  BacklogHeldBy,
  BacklogTickJob,
  DeliveryItem,
  DeliveryTarget,
  StoreJob,
} from '../domain/delivery';
import type { EndpointHealth } from '../domain/health';
import { endpointIdOf, type Subscription } from '../domain/model';
import { topicIdOf } from '../domain/names';
import { packStoreJobs, targetGroupId } from '../queue/job-codec';
import type { BacklogStore } from '../storage/backlog';
import type { HealthStore } from '../storage/health';
import type { HeldMarks } from '../storage/held-marks';
import {
  BacklogStoreStep,
  contentSourceIds,
  type SourcedStoreJob,
  type StoreResult,
} from './backlog-store-step';
import type { BacklogSweepReport } from './backlog-sweep';
import { BacklogTick } from './backlog-tick';
import type { DeliveryEngine, DeliveryEngineDeps, JobOptions } from './engine';
import { ALWAYS_QUEUE, type FollowUpRoute } from './follow-ups';
import { emptyReport, type JobReport } from './job-report';
import { BACKLOG_AFTER_MS, type BacklogHealthView, storeOrQueue } from './rules/backlog';
import { holdsInBacklog, isDraining } from './rules/health';
import type { DeliveryProfile } from './rules/profiles';

/** What an engine that keeps backlogs needs besides its own dependencies. */
export interface EngineBacklog {
  /** The segments and their index. */
  readonly store: BacklogStore;
  /** The endpoint's stored health, read strongly consistently by each tick, and its drain mark written. */
  readonly healthStore: Pick<HealthStore, 'get' | 'put'>;
  /**
   * Whether events are routed into backlogs (default true). Off, nothing new is stored, but
   * backlogs that hold events still wake, drain and empty (the way to switch them off).
   */
  readonly routing?: boolean;
  /** Waits longer than this are stored, in real time (default {@link BACKLOG_AFTER_MS}); scaled by the profile. */
  readonly afterMs?: number;
  /** Requests a backlog's drain has in flight to its endpoint at most. */
  readonly drainConcurrency: number;
  /** New timer tokens (default: random UUIDs). */
  readonly newToken?: () => string;
  /** Where ticks set and remove held marks, for publishers (default: no marks kept). */
  readonly heldMarks?: Pick<HeldMarks, 'set'>;
}

/** What the store decision reads of an endpoint's health. */
const viewOf = (health: EndpointHealth, now: number): BacklogHealthView => ({
  unhealthy: holdsInBacklog(health),
  draining: isDraining(health, now),
});

/** Nothing is unhealthy or draining: the store decision for a wait alone. */
const WAIT_ONLY: BacklogHealthView = { unhealthy: false, draining: false };

export class EngineBacklogs {
  /** Whether events are routed into backlogs. */
  readonly routing: boolean;
  private readonly afterMs: number;
  private readonly storeStep: BacklogStoreStep;
  private readonly ticks: BacklogTick;

  constructor(
    private readonly deps: DeliveryEngineDeps,
    backlog: EngineBacklog,
    /** The engine whose request path the probes and drains use. */
    attempts: Pick<DeliveryEngine, 'attemptItems' | 'record'>,
  ) {
    this.routing = backlog.routing ?? true;
    this.afterMs = backlog.afterMs ?? BACKLOG_AFTER_MS;
    const newToken = backlog.newToken === undefined ? {} : { newToken: backlog.newToken };
    this.storeStep = new BacklogStoreStep({
      backlog: backlog.store,
      queue: deps.queue,
      endpoints: {
        endpointUrlOf: async (target) => {
          const found = await deps.subscriptions.get(
            topicIdOf(target.topic),
            target.subscription,
            target.version,
          );
          return found === undefined ? undefined : endpointIdOf(found.destination);
        },
      },
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
      ...newToken,
    });
    this.ticks = new BacklogTick({
      store: backlog.store,
      queue: deps.queue,
      clock: deps.clock,
      random: deps.random,
      logger: deps.logger,
      metrics: deps.metrics,
      attempts,
      tracker: deps.health,
      drainConcurrency: backlog.drainConcurrency,
      subscriptions: deps.subscriptions,
      health: backlog.healthStore,
      drops: deps.drops,
      history: deps.history,
      profiles: deps.profiles,
      ...newToken,
      ...(backlog.heldMarks === undefined ? {} : { heldMarks: backlog.heldMarks }),
    });
  }

  /** Stores the events of `store` jobs, many at once (their events share segments), and arms each backlog's timer. */
  store(jobs: readonly SourcedStoreJob[]): Promise<StoreResult> {
    return this.storeStep.store(jobs);
  }

  /** One `store` job on its own, named by its events (their ids and attempt counts). */
  async storeOne(job: StoreJob): Promise<JobReport> {
    const sourceId = contentSourceIds(job.items).join('\n');
    const result = await this.store([{ sourceId, job }]);
    const reason = result.unfinished.get(sourceId);
    if (reason !== undefined) throw new Error(reason);
    return { ...emptyReport(), stored: job.items.length };
  }

  async tick(job: BacklogTickJob, options: JobOptions): Promise<JobReport> {
    const report = await this.ticks.tick(job, options);
    return {
      ...emptyReport(),
      delivered: report.delivered,
      retried: report.released,
      ended: report.ended + report.dropped,
      stored: report.storedBack,
    };
  }

  sweep(): Promise<BacklogSweepReport> {
    return this.ticks.sweep();
  }

  /** Whether a job due at `dueAt` that is not due yet waits in the backlog rather than hopping. */
  storesWait(dueAt: number, profile: DeliveryProfile): boolean {
    if (!this.routing) return false;
    const now = this.deps.clock.now();
    return (
      storeOrQueue({ dueAt, now, health: WAIT_ONLY, backlogAfterMs: this.afterMs / profile.timeScale }) ===
      'store'
    );
  }

  /**
   * Whether a due job's events are held for the backlog, attempting none: while the endpoint is
   * unhealthy its backlog probes it (one request when its hold ends), and while a recovering
   * one's drain runs, it sends the endpoint only as much as it takes.
   */
  holdsFor(health: EndpointHealth, now: number): boolean {
    if (!this.routing) return false;
    // Due now: only the endpoint's health can send the job to the backlog.
    return (
      storeOrQueue({ dueAt: now, now, health: viewOf(health, now), backlogAfterMs: this.afterMs }) === 'store'
    );
  }

  /**
   * Where a job's follow-ups go, by due time: into the backlog while the endpoint is unhealthy or
   * draining (as this worker sees it now, after the job's own outcomes) and for waits longer than
   * the threshold; otherwise the retry queue.
   */
  routeOf(subscription: Subscription, profile: DeliveryProfile): FollowUpRoute {
    if (!this.routing) return ALWAYS_QUEUE;
    const { clock } = this.deps;
    const view = this.deps.health.peek(subscription);
    const health = view === undefined ? WAIT_ONLY : viewOf(view, clock.now());
    const backlogAfterMs = this.afterMs / profile.timeScale;
    return (dueAt) => storeOrQueue({ dueAt, now: clock.now(), health, backlogAfterMs });
  }

  /** Sends events to the backlog queue, to be stored in their subscription's backlog. */
  async send(target: DeliveryTarget, dueAt: number, heldBy: BacklogHeldBy, items: readonly DeliveryItem[]) {
    const bodies = packStoreJobs({ target, dueAt, heldBy }, items);
    const groupId = targetGroupId(target);
    await this.deps.queue.send(
      'backlog',
      bodies.map((body) => ({ body, delaySeconds: 0, groupId })),
    );
  }
}
