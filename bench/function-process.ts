/**
 * The publish or delivery function in a Node.js process of its own, as a Lambda instance runs
 * it: bundled as the construct bundles it (`bundleAsTheConstruct`), started with the construct's
 * `--enable-source-maps` and a V8 heap limited as at its memory size, and invoked by the local
 * stack (`wrapPublishHandler`, `wrapDeliveryHandler`) in place of its in-process handler. What it
 * is for: the process's peak memory is what the function's memory size must hold, and its CPU
 * time what Lambda's CPU share at that size stretches; the local stack runs every function in one
 * process beside the benchmark and can show neither.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Context } from 'aws-lambda';
import type { LocalStack } from '../local/stack';
import type { RuntimeConfig } from '../shared/config/runtime';
import type { ObservabilityOptions } from '../shared/lambda/wiring';
import type { MetricPoint } from '../shared/observability/metrics';
import type { LocalEndpoints } from '../shared/platform/aws';
import type { RequestCounts } from './aws-counter';
import { bundleAsTheConstruct } from './cold-start';

/** The functions that can run in a process of their own. */
export type MeasuredFunction = 'publish' | 'delivery';

export type FunctionProcessMessage =
  | {
      kind: 'start';
      fn: MeasuredFunction;
      config: RuntimeConfig;
      endpoints: LocalEndpoints;
      logLevel: NonNullable<ObservabilityOptions['logLevel']>;
    }
  | { kind: 'invoke'; id: number; event: unknown }
  | { kind: 'usage' };

export type FunctionProcessReply =
  | { kind: 'started' }
  | { kind: 'answer'; id: number; result?: unknown; error?: string; requests: RequestCounts }
  | { kind: 'usage'; rssBytes: number; heapUsedBytes: number; cpuMs: number }
  | { kind: 'metrics'; points: MetricPoint[] };

export interface FunctionProcessOptions {
  /** The memory size the V8 heap is limited for ({@link heapFlags}). */
  memoryMb: number;
  /** The function's log level (what it writes goes to this process's stdout). */
  logLevel: NonNullable<ObservabilityOptions['logLevel']>;
  /** Where the function's metric points go (its EMF records themselves are dropped). */
  onMetrics: (points: readonly MetricPoint[]) => void;
  /** Where the counts of its AWS requests go, as each invocation answers. */
  onRequests: (counts: RequestCounts) => void;
  /**
   * Settings the deployed function has that the local stack's leave off (the publish function's
   * `deliveryBacklogLimit`), over the stack's configuration.
   */
  config?: Partial<RuntimeConfig>;
}

export interface ProcessUsage {
  /** Peak resident set size, bytes: what Lambda's "Max Memory Used" reports. */
  rssBytes: number;
  heapUsedBytes: number;
  /** CPU time (user and system) the process used. */
  cpuMs: number;
}

/**
 * V8 heap limits for a function of `memoryMb`, as Lambda's Node.js runtime sets them when it
 * starts node (90% of the memory for the old generation, 5% per semi-space: an assumption, the
 * bootstrap script is not documented). A function that outgrows them fails there as here, and V8
 * collects garbage sooner as the limit nears.
 */
export const heapFlags = (memoryMb: number): string[] => [
  `--max-old-space-size=${Math.floor(memoryMb * 0.9)}`,
  `--max-semi-space-size=${Math.max(1, Math.floor(memoryMb * 0.05))}`,
];

export class FunctionProcess {
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();
  private usageWanted: ((usage: ProcessUsage) => void) | undefined;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    { onMetrics, onRequests }: Pick<FunctionProcessOptions, 'onMetrics' | 'onRequests'>,
  ) {
    // The function's log lines pass on (the benchmark's log capture counts them); its EMF
    // records do not: their points came over IPC.
    if (child.stdout !== null) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('{"_aws"')) process.stdout.write(`${line}\n`);
      });
    }
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000);
    });
    child.on('message', (reply: FunctionProcessReply) => {
      if (reply.kind === 'metrics') {
        onMetrics(reply.points);
      } else if (reply.kind === 'usage') {
        this.usageWanted?.({
          rssBytes: reply.rssBytes,
          heapUsedBytes: reply.heapUsedBytes,
          cpuMs: reply.cpuMs,
        });
        this.usageWanted = undefined;
      } else if (reply.kind === 'answer') {
        onRequests(reply.requests);
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (reply.error !== undefined) waiter?.reject(new Error(reply.error));
        else waiter?.resolve(reply.result);
      }
    });
    child.on('exit', (code) => {
      const error = new Error(`the function's process exited (${code}): ${this.stderr.trim()}`);
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    });
  }

  /**
   * Bundles `fn` and starts it on `stack`'s configuration and emulators, its V8 heap limited as
   * for a function of `options.memoryMb` ({@link heapFlags}).
   */
  static async start(
    fn: MeasuredFunction,
    stack: Pick<LocalStack, 'config' | 'endpoints'>,
    options: FunctionProcessOptions,
  ): Promise<FunctionProcess> {
    const dir = await mkdtemp(join(tmpdir(), `gridwire-${fn}-process-`));
    const bundle = join(dir, 'index.js');
    await bundleAsTheConstruct(join(__dirname, 'function-runner.ts'), bundle);
    const child = fork(bundle, [], {
      // Not the benchmark's own loader flags: the bundle is plain JavaScript.
      execArgv: ['--enable-source-maps', ...heapFlags(options.memoryMb)],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      cwd: dir,
    });
    const started = new FunctionProcess(child, dir, options);
    await new Promise<void>((resolve, reject) => {
      const onStarted = (reply: FunctionProcessReply) => {
        if (reply.kind !== 'started') return;
        child.off('message', onStarted);
        resolve();
      };
      child.on('message', onStarted);
      child.once('exit', (code) => reject(new Error(`the ${fn} process exited (${code}) before it started`)));
      child.send({
        kind: 'start',
        fn,
        config: { ...stack.config, ...options.config },
        endpoints: stack.endpoints,
        logLevel: options.logLevel,
      } satisfies FunctionProcessMessage);
    });
    return started;
  }

  /** Invokes the function in its process (the context stays here: the process makes its own). */
  invoke<R>(event: unknown, _context?: Context): Promise<R> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.child.send({ kind: 'invoke', id, event } satisfies FunctionProcessMessage);
    });
  }

  /**
   * The process's memory peaks and CPU time since the last call (or its start); the next call
   * starts afresh. Ask between loads: an invocation in flight counts in both.
   */
  usage(): Promise<ProcessUsage> {
    return new Promise((resolve) => {
      this.usageWanted = resolve;
      this.child.send({ kind: 'usage' } satisfies FunctionProcessMessage);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill();
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
