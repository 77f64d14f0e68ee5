/**
 * Benchmark plumbing: the handles on the load generator and webhook sink child processes, and the
 * usage collectors (AWS requests, Lambda invocations) around a local stack.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { DeliveryFunctionHandler } from '../functions/delivery';
import type { InvocationStats } from '../local/lambda-context';
import { FUNCTIONS } from '../shared/config/resources';
import type { AwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import { AwsRequestCounter, type RequestCounts } from './aws-counter';
import { billedGbSeconds, emptyLambdaUsage, type LambdaUsage } from './cost';
import type {
  LoopbackOutcome,
  LoopbackPlan,
  PublisherMessage,
  PublisherOutcomes,
  PublisherRequest,
  PublishOutcome,
  PublishPlan,
} from './publisher-protocol';
import type { SinkMessage, SinkRequest } from './sink';

/**
 * The load generator in its own process: `run` publishes one plan there and resolves with its
 * outcome; `loopback` runs the closed loop of the loopback HTTP reference there.
 */
export class Publishers {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<Publishers> {
    const child = fork(join(__dirname, 'publisher-process.ts'), [], {
      execArgv: ['--import', 'tsx', '--no-warnings'],
      cwd: join(__dirname, '..'),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', (message: PublisherMessage) => {
        if (message.type === 'ready') resolve();
      });
      child.once('exit', (code) => reject(new Error(`publisher exited (${code})`)));
    });
    return new Publishers(child);
  }

  run(plan: PublishPlan): Promise<PublishOutcome> {
    return this.ask({ type: 'run', plan }, 'done');
  }

  loopback(plan: LoopbackPlan): Promise<LoopbackOutcome> {
    return this.ask({ type: 'loopback', plan }, 'loopback-done');
  }

  /** Sends one request and resolves with the outcome of the first answer of the given type. */
  private ask<T extends keyof PublisherOutcomes>(
    request: PublisherRequest,
    answer: T,
  ): Promise<PublisherOutcomes[T]> {
    return new Promise((resolve) => {
      const onMessage = (message: PublisherMessage) => {
        if (message.type === 'ready' || message.type !== answer) return;
        this.child.off('message', onMessage);
        resolve(message.outcome as PublisherOutcomes[T]);
      };
      this.child.on('message', onMessage);
      this.child.send(request);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' } satisfies PublisherRequest);
    await exited;
  }
}

export class Sink {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<Sink> {
    const child = fork(join(__dirname, 'sink.ts'), [], {
      execArgv: ['--import', 'tsx', '--no-warnings'],
      cwd: join(__dirname, '..'),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: SinkMessage) => {
        if (message.type === 'ready') resolve(message.port);
      });
      child.once('exit', (code) => reject(new Error(`sink exited (${code})`)));
    });
    return new Sink(child, `http://127.0.0.1:${port}/hook`);
  }

  /**
   * The share of answers that fail, how long each answer is held back (ms, default 0), and
   * whether to keep the ids of acknowledged events in order (default not).
   */
  configure(failureRate: number, delayMs = 0, recordIds = false): void {
    this.child.send({ type: 'configure', failureRate, delayMs, recordIds } satisfies SinkRequest);
  }

  /** Sends every answer still held back now; when the sink did, and how many there were. */
  release(): Promise<{ at: number; answers: number }> {
    return new Promise((resolve) => {
      const onMessage = (message: SinkMessage) => {
        if (message.type !== 'released') return;
        this.child.off('message', onMessage);
        resolve({ at: message.at, answers: message.answers });
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'release' } satisfies SinkRequest);
    });
  }

  take(): Promise<Extract<SinkMessage, { type: 'taken' }>> {
    return new Promise((resolve) => {
      const onMessage = (message: SinkMessage) => {
        if (message.type !== 'taken') return;
        this.child.off('message', onMessage);
        resolve(message);
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'take' } satisfies SinkRequest);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' } satisfies SinkRequest);
    await exited;
  }
}

/** Total length of the union of `[start, end]` intervals, in ms (overlapping waits count once). */
export function unionMs(intervals: ReadonlyArray<readonly [number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [start, stop] of sorted) {
    if (stop <= end) continue;
    total += stop - Math.max(start, end);
    end = stop;
  }
  return total;
}

/**
 * AWS requests and Lambda invocations made by the stack's handlers.
 *
 * In a time-scaled run the delivery engine sleeps away waits under a second inside the
 * invocation (at real time it never does: SQS delays are rounded up instead), so that time is
 * not what Lambda would bill on AWS. The collector's `clock` notes every sleep made inside a
 * delivery invocation wrapped by `wrapDelivery`; that time (overlapping sleeps once) is kept out
 * of the billed duration and reported on its own as `scaledWaitGbSeconds`.
 */
export class UsageCollector {
  readonly aws = new AwsRequestCounter();
  private lambda = emptyLambdaUsage();
  private scaledWaitGbSeconds = 0;
  private readonly sleeps = new AsyncLocalStorage<Array<[number, number]>>();
  httpRequests = 0;

  instrument = (clients: AwsClients): void => this.aws.attach(clients);

  readonly clock: Clock = {
    now: () => Date.now(),
    sleep: async (ms) => {
      const started = Date.now();
      await systemClock.sleep(ms);
      this.sleeps.getStore()?.push([started, Date.now()]);
    },
  };

  wrapDelivery = (handler: DeliveryFunctionHandler): DeliveryFunctionHandler => {
    return async (event, context) => {
      const slept: Array<[number, number]> = [];
      try {
        return await this.sleeps.run(slept, () => handler(event, context));
      } finally {
        this.scaledWaitGbSeconds += (unionMs(slept) / 1000) * (FUNCTIONS.delivery.memoryMb / 1024);
      }
    };
  };

  onInvocation = (stats: InvocationStats): void => {
    const usage = this.lambda[stats.function];
    usage.invocations += 1;
    usage.gbSeconds += billedGbSeconds(stats.function, stats.durationMs);
    if (stats.function !== 'delivery') this.httpRequests += 1;
  };

  take(): {
    aws: RequestCounts;
    lambda: Record<string, LambdaUsage>;
    httpRequests: number;
    /** Delivery GB-seconds slept only because time is scaled, already left out of `lambda`. */
    scaledWaitGbSeconds: number;
  } {
    const lambda = this.lambda;
    const scaledWaitGbSeconds = Math.min(this.scaledWaitGbSeconds, lambda.delivery.gbSeconds);
    lambda.delivery.gbSeconds -= scaledWaitGbSeconds;
    const taken = { aws: this.aws.take(), lambda, httpRequests: this.httpRequests, scaledWaitGbSeconds };
    this.lambda = emptyLambdaUsage();
    this.scaledWaitGbSeconds = 0;
    this.httpRequests = 0;
    return taken;
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/** The most of `times` (epoch ms) that fall in any one wall-clock second. */
export function peakPerSecond(times: readonly number[]): number {
  const perSecond = new Map<number, number>();
  for (const at of times) {
    const second = Math.floor(at / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  return Math.max(0, ...perSecond.values());
}

/** How the benchmark's custom-schema topic maps its events to Event Grid events. */
export const BENCH_CUSTOM_MAPPING = {
  inputSchemaMappingType: 'Json',
  properties: {
    id: { sourceField: 'ref' },
    eventTime: { sourceField: 'at' },
    eventType: { sourceField: 'kind' },
    subject: { sourceField: 'path' },
    dataVersion: { defaultValue: '1.0' },
  },
} as const;
