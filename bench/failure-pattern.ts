/**
 * Which webhook answers fail in the failure benchmark. Whether an attempt fails depends only on
 * the event id and the attempt number, so runs repeat exactly; attempts from the seventh on
 * always succeed, so the schedule's long tail (3 h, 6 h, 12 h steps) cannot stretch a run by
 * minutes. At a 30% rate that spares 0.3^6, 0.07% of events.
 */
import { createHash } from 'node:crypto';

/** An event's attempts with `aeg-delivery-count` at or above this always succeed. */
export const MAX_FAILED_ATTEMPTS = 6;

/** Deterministic: the same event and attempt fail (or not) in every run. */
export function failsAttempt(eventId: string, deliveryCount: number, failureRate: number): boolean {
  if (failureRate <= 0 || deliveryCount >= MAX_FAILED_ATTEMPTS) return false;
  const draw = createHash('sha256').update(`${eventId}#${deliveryCount}`).digest().readUInt32BE(0) / 2 ** 32;
  return draw < failureRate;
}
