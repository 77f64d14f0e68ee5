/**
 * Subscriptions' backlogs as a module: the port the delivery engine routes through
 * (`port.ts`: where follow-ups go, whether a due job is held, whether a long wait is stored),
 * and the backlog's own work (`store` jobs through the store step, `backlog-tick` jobs through
 * the tick, the sweep). Probes and drains attempt through the worker's request path and settle
 * as any job does (`settle.ts`); the engine itself is never handed here.
 */
import type {
  BacklogHeldBy,
  BacklogTickJob,
  DeliveryItem,
  DeliveryTarget,
  StoreJob,
} from '../../domain/delivery';
import type { EndpointHealth } from '../../domain/health';
import { endpointIdOf, type Subscription } from '../../domain/model';
import { topicIdOf } from '../../domain/names';
import { packStoreJobs, targetGroupId } from '../../queue/job-codec';
import type { BacklogStore } from '../../storage/backlog';
import type { HealthStore } from '../../storage/health';
import type { HeldMarks } from '../../storage/held-marks';
import type { EngineAttempts } from '../engine-attempts';
import { ALWAYS_QUEUE, type FollowUpRoute } from '../follow-ups';
import { emptyReport, type JobReport } from '../job-report';
import type { DeliverySubscriptions, JobOptions, SettleDeps } from '../ports';
import { BACKLOG_AFTER_MS, type BacklogHealthView, storeOrQueue } from '../rules/backlog';
import { holdsInBacklog, isDraining } from '../rules/health';
import type { DeliveryProfile } from '../rules/profiles';
import type { BacklogPort } from './port';
import { BacklogStoreStep, contentSourceIds, type SourcedStoreJob, type StoreResult } from './store-step';
import type { BacklogSweepReport } from './sweep';
import { BacklogTick } from './tick';

/** What the backlogs work with: what settling takes, the subscriptions, and the worker's request path. */
export interface BacklogsDeps extends SettleDeps, DeliverySubscriptions {
  /** The worker's request path: probes and drains share its slots with the jobs. */
  attempts: Pick<EngineAttempts, 'attemptItems'>;
}

/** Where backlogs are kept, and how they behave. */
export interface BacklogSettings {
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

export class Backlogs implements BacklogPort {
  /** Whether events are routed into backlogs. */
  readonly routing: boolean;
  private readonly afterMs: number;
  private readonly storeStep: BacklogStoreStep;
  private readonly ticks: BacklogTick;

  constructor(
    private readonly deps: BacklogsDeps,
    settings: BacklogSettings,
  ) {
    this.routing = settings.routing ?? true;
    this.afterMs = settings.afterMs ?? BACKLOG_AFTER_MS;
    const newToken = settings.newToken === undefined ? {} : { newToken: settings.newToken };
    this.storeStep = new BacklogStoreStep({
      backlog: settings.store,
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
      ...deps,
      store: settings.store,
      healthStore: settings.healthStore,
      drainConcurrency: settings.drainConcurrency,
      ...newToken,
      ...(settings.heldMarks === undefined ? {} : { heldMarks: settings.heldMarks }),
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
  private storesWait(dueAt: number, profile: DeliveryProfile): boolean {
    if (!this.routing) return false;
    const now = this.deps.clock.now();
    return (
      storeOrQueue({ dueAt, now, health: WAIT_ONLY, backlogAfterMs: this.afterMs / profile.timeScale }) ===
      'store'
    );
  }

  async storeWait(
    target: DeliveryTarget,
    dueAt: number,
    items: readonly DeliveryItem[],
    profile: DeliveryProfile,
  ): Promise<boolean> {
    if (!this.storesWait(dueAt, profile)) return false;
    await this.send(target, dueAt, 'wait', items);
    return true;
  }

  holds(health: EndpointHealth, now: number): boolean {
    if (!this.routing) return false;
    // Due now: only the endpoint's health can send the job to the backlog.
    return (
      storeOrQueue({ dueAt: now, now, health: viewOf(health, now), backlogAfterMs: this.afterMs }) === 'store'
    );
  }

  route(subscription: Subscription, profile: DeliveryProfile): FollowUpRoute {
    if (!this.routing) return ALWAYS_QUEUE;
    const { clock } = this.deps;
    const view = this.deps.health.peek(subscription);
    const health = view === undefined ? WAIT_ONLY : viewOf(view, clock.now());
    const backlogAfterMs = this.afterMs / profile.timeScale;
    return (dueAt) => storeOrQueue({ dueAt, now: clock.now(), health, backlogAfterMs });
  }

  /** Sends events to the backlog queue, to be stored in their subscription's backlog. */
  private async send(
    target: DeliveryTarget,
    dueAt: number,
    heldBy: BacklogHeldBy,
    items: readonly DeliveryItem[],
  ): Promise<void> {
    const bodies = packStoreJobs({ target, dueAt, heldBy }, items);
    const groupId = targetGroupId(target);
    await this.deps.queue.send(
      'backlog',
      bodies.map((body) => ({ body, delaySeconds: 0, groupId })),
    );
  }
}
