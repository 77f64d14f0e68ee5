/**
 * What the retry engine simulation (`simulation.ts`) runs against: the scripted webhooks, each
 * answering by virtual time, and the events it publishes to them.
 */
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import type { RetryPolicy } from '../shared/domain/model';
import { queuedItem } from './virtual-queue';

const M = 60 * 1000;
const H = 60 * M;

/** A webhook's behaviour: the HTTP status it answers at a given virtual time (ms since start). */
export interface EndpointPattern {
  name: string;
  describe: string;
  status(elapsedMs: number, random: () => number): number;
  retryPolicy?: RetryPolicy;
}

export const PATTERNS: EndpointPattern[] = [
  { name: 'healthy', describe: 'always 200', status: () => 200 },
  {
    name: 'flaky-30',
    describe: '30% of answers are 500',
    status: (_t, random) => (random() < 0.3 ? 500 : 200),
  },
  {
    name: 'down-2h',
    describe: '503 for the first 2 hours, then 200',
    status: (t) => (t < 2 * H ? 503 : 200),
  },
  { name: 'always-500', describe: '500 forever (ends by TTL)', status: () => 500 },
  { name: 'timeout-408', describe: '408 for 30 minutes, then 200', status: (t) => (t < 30 * M ? 408 : 200) },
  { name: 'rejects-400', describe: '400 (never retried)', status: () => 400 },
  {
    name: 'five-attempts',
    describe: '500 forever, maxDeliveryAttempts 5',
    status: () => 500,
    retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 1440 },
  },
];

/**
 * One endpoint, one subscription, many events: 503 for the first 6 hours, then 200. Its events
 * are held (probation, then the backlog) rather than attempted on their own schedules.
 */
export const PARKED: EndpointPattern = {
  name: 'parked-endpoint',
  describe: 'one subscription, 503 for 6 hours, then 200',
  status: (t) => (t < PARKED_FOR_MS ? 503 : 200),
};
/** How long the parked endpoint answers 503. */
export const PARKED_FOR_MS = 6 * H;

/** An event of the simulation as publish queues it. */
export function simulatedItem(id: string, publishedAt: number): DeliveryItem {
  const event: EventGridEvent = {
    id,
    topic: '/gridwire/topics/sim',
    subject: id,
    eventType: 'Sim.Event',
    eventTime: new Date(publishedAt).toISOString(),
    dataVersion: '',
    metadataVersion: '1',
  };
  return queuedItem(event, publishedAt);
}
