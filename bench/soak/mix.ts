/**
 * The soak's traffic mix: one Event Grid topic, one subscription per kind of endpoint, each
 * filtered to an event type of its own so every event goes to exactly one subscription (its
 * kind is a function of its number). Shares are per mille of the events published.
 */

/** How a subscription's endpoint behaves (the soak's webhook answers by the request's path). */
export type EndpointBehaviour = 'healthy' | 'slow' | 'flaky' | 'dead-for-a-while' | 'gone' | 'queue';

export interface SoakSubscription {
  /** Its name, its event type's last part and its webhook path. */
  readonly name: string;
  readonly behaviour: EndpointBehaviour;
  /** Per mille of the events published. */
  readonly share: number;
  /** More properties of the subscription (batching, signing, ordering, a rate limit). */
  readonly destination?: Record<string, unknown>;
  readonly properties?: Record<string, unknown>;
  /** Its events are attempted as soon as they are accepted (checked for events overdue). */
  readonly immediate: boolean;
}

/** The signing secret the signed subscription starts with (rotated by the fault schedule). */
export const FIRST_SIGNING_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
export const SECOND_SIGNING_SECRET = `whsec_${Buffer.alloc(32, 11).toString('base64')}`;

export const SOAK_SUBSCRIPTIONS: readonly SoakSubscription[] = [
  { name: 'healthy', behaviour: 'healthy', share: 480, immediate: true },
  {
    name: 'batched',
    behaviour: 'healthy',
    share: 200,
    destination: { maxEventsPerBatch: 50, preferredBatchSizeInKilobytes: 1024 },
    // Paused for a while by the fault schedule.
    immediate: false,
  },
  {
    name: 'signed',
    behaviour: 'healthy',
    share: 80,
    destination: { signing: { secret: FIRST_SIGNING_SECRET } },
    immediate: true,
  },
  {
    name: 'ordered',
    behaviour: 'healthy',
    share: 50,
    properties: { orderedDelivery: { key: 'subject' } },
    immediate: true,
  },
  { name: 'queue', behaviour: 'queue', share: 50, immediate: true },
  { name: 'flaky', behaviour: 'flaky', share: 60, immediate: false },
  { name: 'slow', behaviour: 'slow', share: 20, immediate: false },
  { name: 'comeback', behaviour: 'dead-for-a-while', share: 40, immediate: false },
  {
    name: 'limited',
    behaviour: 'healthy',
    share: 15,
    destination: { maxDeliveriesPerSecond: 10 },
    immediate: false,
  },
  { name: 'gone', behaviour: 'gone', share: 5, immediate: false },
];

/** Per mille in all (checked at load). */
const TOTAL = SOAK_SUBSCRIPTIONS.reduce((sum, subscription) => sum + subscription.share, 0);
if (TOTAL !== 1000) throw new Error(`the soak's shares add up to ${TOTAL}, not 1000`);

/** The subscription index of each of the 1,000 slots an event number falls in (`n % 1000`). */
const SLOTS: readonly number[] = (() => {
  const slots: number[] = [];
  // Spread each subscription's slots evenly, so a 100-event request carries every kind in share.
  const weights = SOAK_SUBSCRIPTIONS.map((subscription) => subscription.share);
  const given = weights.map(() => 0);
  for (let slot = 0; slot < 1000; slot += 1) {
    let best = 0;
    let bestLag = Number.NEGATIVE_INFINITY;
    for (let index = 0; index < weights.length; index += 1) {
      const lag = ((slot + 1) * (weights[index] as number)) / 1000 - (given[index] as number);
      if (lag > bestLag) {
        bestLag = lag;
        best = index;
      }
    }
    given[best] = (given[best] as number) + 1;
    slots.push(best);
  }
  return slots;
})();

/** The subscription (index into {@link SOAK_SUBSCRIPTIONS}) event number `n` goes to. */
export const subscriptionOf = (n: number): number => SLOTS[n % 1000] as number;

/** Event type of the events for subscription `name`. */
export const eventTypeOf = (name: string): string => `Soak.${name}`;

/** The soak event numbered `n`, as published (Event Grid schema). */
export function soakEvent(n: number, time: string): string {
  const subscription = SOAK_SUBSCRIPTIONS[subscriptionOf(n)] as SoakSubscription;
  // 20 keys for the ordered subscription; the others' subjects are not read.
  return `{"id":"s${n}","subject":"soak/k${n % 20}","eventType":"${eventTypeOf(subscription.name)}","eventTime":"${time}","dataVersion":"1","data":{"n":${n}}}`;
}

/** The event number of a soak event id (`s<n>`); -1 for anything else. */
export function numberOf(id: string): number {
  if (id.charCodeAt(0) !== 115 /* s */) return -1;
  const n = Number(id.slice(1));
  return Number.isInteger(n) && n >= 0 ? n : -1;
}
