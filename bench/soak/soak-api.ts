/**
 * The soak's side of the stack's admin API: its topic and token, calls that wait out a restart,
 * the subscriptions' bodies, what a backlog is held until, and the dead-letter blobs read into the
 * ledger.
 */
import type { SoakLedger } from './ledger';
import { eventTypeOf, numberOf, SOAK_SUBSCRIPTIONS, subscriptionOf } from './mix';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const TOPIC = 'soak';
export const ADMIN_TOKEN = 'soak-admin-token';
const DEAD_CONTAINER = 'soak-dead';

/** Calls the admin API of the stack at `apiUrl`; throws on an answer >= 300. */
export async function admin(apiUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    }).catch(() => undefined);
    if (response === undefined || response.status === 503) {
      // The stack restarting or its table away: the soak's own calls wait for it.
      if (attempt >= 60) throw new Error(`${method} ${path}: no answer after ${attempt} tries`);
      await sleep(1000);
      continue;
    }
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return text === '' ? undefined : JSON.parse(text);
  }
}

export const subscriptionPath = (name: string) => `/admin/topics/${TOPIC}/eventSubscriptions/${name}`;

/** A soak subscription's body for PUT, with `changes` (an edit under load). */
export function subscriptionBody(
  name: string,
  webhookUrl: string,
  queueArn: string,
  changes: { query?: string; destination?: Record<string, unknown> } = {},
): unknown {
  const subscription = SOAK_SUBSCRIPTIONS.find((candidate) => candidate.name === name);
  if (subscription === undefined) throw new Error(`no soak subscription ${name}`);
  const destination =
    subscription.behaviour === 'queue'
      ? { endpointType: 'AwsSqsQueue', properties: { resourceArn: queueArn } }
      : {
          endpointType: 'WebHook',
          properties: {
            endpointUrl: `${webhookUrl}/${name}${changes.query ?? ''}`,
            ...subscription.destination,
            ...changes.destination,
          },
        };
  return {
    properties: {
      ...subscription.properties,
      destination,
      filter: { includedEventTypes: [eventTypeOf(name)] },
      deadLetterDestination: {
        endpointType: 'StorageBlob',
        properties: { blobContainerName: DEAD_CONTAINER },
      },
    },
  };
}

/**
 * The latest time a backlog of a subscription with events outstanding is held until (its health
 * document's `held.until`), or undefined when none is held.
 */
export async function heldUntilOf(
  ledger: SoakLedger,
  get: (path: string) => Promise<unknown>,
): Promise<number | undefined> {
  const waiting = new Set(ledger.outstanding().map((n) => subscriptionOf(n)));
  let latest: number | undefined;
  for (const index of waiting) {
    const name = SOAK_SUBSCRIPTIONS[index]?.name as string;
    const health = (await get(`${subscriptionPath(name)}/health`).catch(() => undefined)) as
      | { held?: { until?: string } | null }
      | undefined;
    const until = health?.held?.until === undefined ? Number.NaN : Date.parse(health.held.until);
    if (Number.isFinite(until)) latest = Math.max(latest ?? until, until);
  }
  return latest;
}

/** Reads every subscription's dead-letter blobs once each, telling the ledger each record's event and reason. */
export class DeadLetterReader {
  private readonly read = new Set<string>();

  constructor(
    private readonly call: (method: string, path: string) => Promise<unknown>,
    private readonly ledger: SoakLedger,
  ) {}

  async readAll(): Promise<void> {
    for (const subscription of SOAK_SUBSCRIPTIONS) {
      let page: string | undefined;
      do {
        const listed = (await this.call(
          'GET',
          `${subscriptionPath(subscription.name)}/deadLetters${page === undefined ? '' : `?page=${encodeURIComponent(page)}`}`,
        )) as { value: Array<{ key: string }>; nextPage?: string };
        for (const { key } of listed.value) {
          if (this.read.has(key)) continue;
          const blob = (await this.call(
            'GET',
            `${subscriptionPath(subscription.name)}/deadLetters/blob?key=${encodeURIComponent(key)}`,
          )) as { records: Array<{ id?: unknown; deadLetterReason?: unknown }> };
          for (const record of blob.records) {
            this.ledger.deadLettered(
              numberOf(String(record.id)),
              String(record.deadLetterReason ?? 'unknown'),
            );
          }
          this.read.add(key);
        }
        page = listed.nextPage;
      } while (page !== undefined);
    }
  }
}
