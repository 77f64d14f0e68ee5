/**
 * A local stack for a scenario (its own data directory, usage counted by a `UsageCollector`), and
 * the admin calls the scenarios make on it: topics and their webhook subscriptions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeliveryFunctionHandler } from '../../functions/delivery';
import type { HttpHandler } from '../../local/gateway';
import { type LocalStack, startLocalStack } from '../../local/stack';
import type { InputSchema, SubscriptionFilter } from '../../shared/domain/model';
import { BENCH_CUSTOM_MAPPING, type Publishers, type Sink, UsageCollector } from '../load';

export interface LiveStack {
  stack: LocalStack;
  usage: UsageCollector;
  dataDir: string;
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** What a load run needs: a stack, the webhook sink and the load generator. */
export interface Rig {
  live: LiveStack;
  sink: Sink;
  publishers: Publishers;
}

export async function liveStack(options: {
  timeScale: number;
  /** The handlers' log level (default ERROR: the benchmark's console stays readable). */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Webhook requests one delivery invocation has in flight (default: the local stack's). */
  deliveryConcurrency?: number;
  /** Delivery invocations in flight per queue (default: the queue's, as on AWS). */
  maxConcurrency?: number;
  /** Receive loops each queue starts with (default: the local stack's). */
  pollersPerQueue?: number;
  /** Seconds each poller's receive waits (default: the local stack's 2 s; Lambda's pollers wait 20). */
  receiveWaitSeconds?: number;
  /**
   * The delivery queue's batching window (default: none, so the shared stack's latency and
   * throughput are the engine's own; the bill measures the construct's window).
   */
  deliveryBatchingWindow?: { seconds: number; batchSize?: number };
  /** Metrics per subscription or per topic (default: the local stack's, per subscription). */
  subscriptionMetrics?: boolean;
  /** Wraps the delivery handler the pollers invoke (inside the usage collector's wrapping). */
  wrapDelivery?: (handler: DeliveryFunctionHandler) => DeliveryFunctionHandler;
  /** Wraps the publish handler the API and the function URL invoke. */
  wrapPublish?: (handler: HttpHandler) => HttpHandler;
}): Promise<LiveStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gridwire-bench-'));
  const usage = new UsageCollector();
  const stack = await startLocalStack({
    dataDir,
    port: 0,
    logLevel: options.logLevel ?? 'ERROR',
    ...(options.deliveryConcurrency === undefined
      ? {}
      : { deliveryConcurrency: options.deliveryConcurrency }),
    ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
    ...(options.pollersPerQueue === undefined ? {} : { pollersPerQueue: options.pollersPerQueue }),
    ...(options.receiveWaitSeconds === undefined ? {} : { receiveWaitSeconds: options.receiveWaitSeconds }),
    deliveryBatchingWindow: options.deliveryBatchingWindow ?? { seconds: 0 },
    ...(options.subscriptionMetrics === undefined
      ? {}
      : { subscriptionMetrics: options.subscriptionMetrics }),
    timeScale: options.timeScale,
    // As on AWS: publishers trust a topic for a second.
    topicCacheMs: 1000,
    instrumentClients: usage.instrument,
    onInvocation: usage.onInvocation,
    clock: usage.clock,
    wrapDeliveryHandler: (handler) => usage.wrapDelivery(options.wrapDelivery?.(handler) ?? handler),
    ...(options.wrapPublish === undefined ? {} : { wrapPublishHandler: options.wrapPublish }),
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    const text = await response.text();
    return text === '' ? undefined : JSON.parse(text);
  };
  return {
    stack,
    usage,
    dataDir,
    call,
    close: async () => {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchSubscription {
  name: string;
  url: string;
  /** More destination properties of the subscription (batching, headers). */
  destination?: Record<string, unknown>;
  filter?: SubscriptionFilter;
  /** More properties of the subscription (`deliveryLog`). */
  properties?: Record<string, unknown>;
}

/** Creates a topic and its webhook subscriptions; returns the topic's key. */
export async function topicWithSubscriptions(
  live: LiveStack,
  topic: string,
  subscriptions: readonly BenchSubscription[],
  inputSchema: InputSchema = 'EventGridSchema',
): Promise<string> {
  await live.call('PUT', `/admin/topics/${topic}`, {
    properties: {
      inputSchema,
      ...(inputSchema === 'CustomEventSchema' ? { inputSchemaMapping: BENCH_CUSTOM_MAPPING } : {}),
    },
  });
  for (const { name, url, destination = {}, filter, properties = {} } of subscriptions) {
    await live.call('PUT', `/admin/topics/${topic}/eventSubscriptions/${name}`, {
      properties: {
        ...properties,
        destination: { endpointType: 'WebHook', properties: { endpointUrl: url, ...destination } },
        ...(filter === undefined ? {} : { filter }),
      },
    });
  }
  const keys = (await live.call('POST', `/admin/topics/${topic}/listKeys`)) as { key1: string };
  return keys.key1;
}

/** A topic with one subscription, `sink`, on `url`; returns the topic's key. */
export const topicWithSubscription = (
  live: LiveStack,
  topic: string,
  url: string,
  inputSchema: InputSchema = 'EventGridSchema',
  /** More destination properties of the subscription (batching, headers). */
  destination: Record<string, unknown> = {},
): Promise<string> => topicWithSubscriptions(live, topic, [{ name: 'sink', url, destination }], inputSchema);

/**
 * Publishes `events` events to `topic` in requests of 100, ids `<prefix>-<n>` and `data.n` their
 * number; rejects on a publish the stack refuses.
 */
export async function publishInHundreds(
  live: LiveStack,
  topic: string,
  key: string,
  events: number,
  prefix: string,
  eventType: string,
): Promise<void> {
  for (let request = 0; request < events / 100; request += 1) {
    const body = Array.from({ length: Math.min(100, events - request * 100) }, (_, i) => ({
      id: `${prefix}-${request * 100 + i}`,
      subject: 'bench',
      eventType,
      eventTime: new Date().toISOString(),
      data: { n: request * 100 + i },
    }));
    const response = await fetch(`${live.stack.apiUrl}/topics/${topic}/api/events`, {
      method: 'POST',
      headers: { 'aeg-sas-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`publish: ${response.status} ${await response.text()}`);
  }
}
