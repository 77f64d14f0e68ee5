/**
 * What is known of an endpoint's health: the record delivery workers share (one item per
 * subscription), and the states operators see. The rules that change it are pure functions in
 * `shared/delivery/rules/health.ts`.
 */
import { z } from 'zod';
import { DELIVERY_OUTCOMES } from './model';

/** How a subscription's endpoint is doing, as operators see it. */
export const HEALTH_STATES = ['Healthy', 'Probation', 'Unhealthy', 'Disabled', 'Paused'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/**
 * What is known of one subscription's endpoint: one item per subscription, written only when it
 * fails (or recovers), never on the happy path. `rev` grows with every write; a write is made
 * only over the `rev` it read, so concurrent workers never lose each other's updates.
 */
export const endpointHealthSchema = z.object({
  topic: z.string(),
  subscription: z.string(),
  /** The endpoint this is about; a subscription aimed elsewhere starts healthy again. */
  endpointUrl: z.string(),
  /** Failed attempts since the last success. */
  consecutiveFailures: z.number(),
  /** Probation periods begun since the last success (each unhealthy one holds longer). */
  probations: z.number(),
  /** Epoch ms; no attempt starts before it. */
  probationUntil: z.number().optional(),
  /** The outcome that began the current (or last) probation. */
  probationOutcome: z.enum(DELIVERY_OUTCOMES).optional(),
  lastOutcome: z.union([z.enum(DELIVERY_OUTCOMES), z.literal('Delivered')]).optional(),
  lastFailureAt: z.number().optional(),
  lastSuccessAt: z.number().optional(),
  /** Epoch ms when the endpoint turned unhealthy (too many failures in a row); holds grow from here. */
  unhealthySince: z.number().optional(),
  /**
   * Epoch ms of the last reset (an admin's `enable`, or the subscription's delete): outcomes of
   * attempts started before it count for nothing, so a worker's unwritten ones can't undo it.
   */
  resetAt: z.number().optional(),
  /**
   * Epoch ms when the endpoint was disabled: by a 410 Gone answer, or after failing every attempt
   * for the subscription's `disableAfterFailingFor`; disabled until an admin enables it.
   */
  disabledAt: z.number().optional(),
  /** Why it was disabled: `Gone` (410), or `FailingTooLong`; absent on records written before it existed. */
  disabledReason: z.enum(['Gone', 'FailingTooLong']).optional(),
  /** Epoch ms of the first failed attempt since the last success (absent while it succeeds). */
  failingSince: z.number().optional(),
  /**
   * Epoch ms when an admin paused the subscription: nothing is sent to its endpoint, and its
   * events wait (their time to live running) until it is resumed.
   */
  pausedAt: z.number().optional(),
  /**
   * Epoch ms until which a drain of the subscription's backlog is running: workers store new
   * events behind it, so the recovering endpoint sees only the drain's requests. Cleared when the
   * drain ends; a drain that dies leaves it to run out.
   */
  drainingUntil: z.number().optional(),
  rev: z.number(),
});
export type EndpointHealth = z.infer<typeof endpointHealthSchema>;
