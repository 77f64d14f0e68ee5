/**
 * Starts the real local stack (emulators, handlers, gateway, pollers) in a temporary data
 * directory, with a small client for its HTTP API.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../local/stack';
import { recordExchange } from './api-contract';
import { recordAwsCalls } from './aws-calls';
import { namespacePushBody } from './fakes';
import { eventually } from './webhook-server';

// biome-ignore lint/suspicious/noExplicitAny: tests read API answers freely and assert on them.
export type Json = any;

export interface TestStack {
  stack: LocalStack;
  /** Calls the API; `auth: false` leaves out the admin token. */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { auth?: boolean; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Json }>;
  /** Creates a topic and returns its key1. */
  createTopic(name: string): Promise<string>;
  subscribe(topic: string, name: string, endpointUrl: string, extra?: Record<string, unknown>): Promise<void>;
  publish(topic: string, key: string, events: unknown): Promise<{ status: number; body: Json }>;
  /**
   * Creates a namespace, one of its topics and a push subscription of that topic on
   * `endpointUrl`; returns the namespace's key1.
   */
  createNamespaceTopic(
    namespace: string,
    topic: string,
    subscription: string,
    endpointUrl: string,
  ): Promise<string>;
  /** Waits for the subscription's first dead-letter blob and reads it: its key and records. */
  firstDeadLetterBlob(topic: string, subscription: string): Promise<{ key: string; records: Json[] }>;
  /**
   * Waits until the delivery history of `eventId` shows `status` and returns its record. A
   * webhook sees an attempt before the delivery records the attempt's outcome.
   */
  historyWhen(topic: string, subscription: string, eventId: string, status: string): Promise<Json>;
  close(): Promise<void>;
}

export const event = (id: string, eventType = 'Order.Created', data: unknown = { id }) => ({
  id,
  subject: `orders/${id}`,
  eventType,
  eventTime: '2026-11-01T10:00:00Z',
  data,
});

/**
 * `options` with every AWS call the stack makes recorded for the IAM check (`aws-calls.ts`),
 * beside what `options.instrumentClients` adds, and every request its routes take held to the
 * API's description (`api-contract.ts`), beside what `options.onExchange` does.
 */
export const recordingCalls = <T extends Partial<LocalStackOptions>>(options: T): T => ({
  ...options,
  instrumentClients: (clients) => {
    recordAwsCalls(clients);
    options.instrumentClients?.(clients);
  },
  onExchange: (exchange) => {
    recordExchange(exchange);
    options.onExchange?.(exchange);
  },
});

export async function startTestStack(options: Partial<LocalStackOptions> = {}): Promise<TestStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gridwire-test-'));
  const stack = await startLocalStack(
    recordingCalls({
      dataDir,
      port: 0,
      logLevel: 'SILENT',
      ...options,
    }),
  );
  const call: TestStack['call'] = async (method, path, body, callOptions = {}) => {
    const response = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: {
        ...(callOptions.auth === false ? {} : { authorization: `Bearer ${stack.adminToken}` }),
        'content-type': 'application/json',
        ...callOptions.headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    stack,
    call,
    createTopic: async (name) => {
      const created = await call('PUT', `/admin/topics/${name}`, {
        properties: { inputSchema: 'EventGridSchema' },
      });
      if (created.status !== 201)
        throw new Error(`topic ${name}: ${created.status} ${JSON.stringify(created.body)}`);
      return (await call('POST', `/admin/topics/${name}/listKeys`)).body.key1;
    },
    subscribe: async (topic, name, endpointUrl, extra = {}) => {
      const result = await call('PUT', `/admin/topics/${topic}/eventSubscriptions/${name}`, {
        properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } }, ...extra },
      });
      if (result.status !== 201)
        throw new Error(`subscription ${name}: ${result.status} ${JSON.stringify(result.body)}`);
    },
    createNamespaceTopic: async (namespace, topic, name, endpointUrl) => {
      const base = `/admin/namespaces/${namespace}`;
      for (const [path, body] of [
        [base, { properties: {} }],
        [`${base}/topics/${topic}`, { properties: {} }],
        [`${base}/topics/${topic}/eventSubscriptions/${name}`, namespacePushBody(endpointUrl)],
      ] as const) {
        const created = await call('PUT', path, body);
        if (created.status !== 201)
          throw new Error(`${path}: ${created.status} ${JSON.stringify(created.body)}`);
      }
      return (await call('POST', `${base}/listKeys`)).body.key1;
    },
    publish: (topic, key, events) =>
      call('POST', `/topics/${topic}/api/events?api-version=2018-01-01`, events, {
        auth: false,
        headers: { 'aeg-sas-key': key },
      }),
    firstDeadLetterBlob: async (topic, subscription) => {
      const route = `/admin/topics/${topic}/eventSubscriptions/${subscription}/deadLetters`;
      const key = await eventually(
        async () => {
          const list = await call('GET', route);
          return (list.body.value?.[0]?.key as string | undefined) ?? undefined;
        },
        20_000,
        `a dead-letter blob of ${topic}/${subscription}`,
      );
      const blob = await call('GET', `${route}/blob?key=${encodeURIComponent(key)}`);
      if (blob.status !== 200) throw new Error(`dead-letter blob ${key}: ${blob.status}`);
      return { key, records: blob.body.records };
    },
    historyWhen: (topic, subscription, eventId, status) => {
      const route = `/admin/topics/${topic}/eventSubscriptions/${subscription}/deliveries?eventId=${encodeURIComponent(eventId)}`;
      return eventually(
        async () => {
          const record = (await call('GET', route)).body.value?.[0];
          return record?.status === status && record;
        },
        10_000,
        `${status} in the history of ${eventId}`,
      );
    },
    close: async () => {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
