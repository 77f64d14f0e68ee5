/**
 * One delivery attempt as the engine sees it (its result) and as the attempt history (the message
 * log) keeps it (its record, and what followed it).
 */
import type { DeadLetterReason, DeliveryOutcome, DropReason } from './model';

/** How much of an endpoint's answer body an attempt keeps (the message log shows it). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** The result of one HTTP attempt. */
export interface AttemptResult {
  /** `true` only for HTTP 200-204. */
  delivered: boolean;
  /** `undefined` when delivered. */
  outcome?: DeliveryOutcome;
  httpStatus?: number;
  durationMs: number;
  /** The first {@link RESPONSE_EXCERPT_BYTES} of the answer body as text; absent when it was empty. */
  response?: string;
  /** Short error text for network failures. */
  error?: string;
  /**
   * The error code behind a network failure's outcome (`ENOTFOUND`, `EAI_AGAIN`, `ECONNREFUSED`...):
   * the profile decides some per code (a name that does not exist ends delivery at once).
   */
  errorCode?: string;
  /** Seconds from a `Retry-After` answer header, when present and valid. */
  retryAfterSeconds?: number;
  /**
   * Set on a `TimedOut` result whose request is still listened to: until when (epoch ms) a late
   * success is recorded as the event's delivery (`shared/delivery/rules/late-answer.ts`).
   */
  listeningUntil?: number;
}

/** What happened after an attempt (or a due-time check), as recorded in the attempt history. */
export type AttemptNext =
  | { action: 'retry'; dueAt: number }
  | { action: 'deadLetter'; reason: DeadLetterReason }
  | { action: 'dropped'; reason: DropReason }
  | { action: 'none' };

/**
 * One entry of an event's delivery history (the message log). With the subscription's
 * `deliveryLog` at `Failures` (the default), written only for failed attempts and for what follows
 * them, so a first-attempt success costs no database write; at `All`, for every attempt.
 */
export interface AttemptRecord {
  topic: string;
  subscription: string;
  /**
   * The subscription's `uid` as the record was made (absent when it has none, and on records
   * written before it was kept): a subscription deleted and created again under the same name
   * does not see its predecessor's records (`shared/storage/history-items.ts`, `ownRecord`).
   */
  uid?: string;
  eventId: string;
  deliveryId: string;
  publishedAt: number;
  /** 1-based attempt number; a due-time decision made without an attempt (TTL expiry) takes the number the attempt would have had. */
  attempt: number;
  /**
   * Epoch ms when the attempt started (or, for a due-time decision, when it was made; for a
   * success that came after the attempt timed out, when it came).
   */
  at: number;
  outcome: DeliveryOutcome | 'Delivered' | 'NotAttempted';
  httpStatus?: number;
  durationMs?: number;
  error?: string;
  /** The first {@link RESPONSE_EXCERPT_BYTES} of the endpoint's answer body. */
  response?: string;
  /**
   * The event as delivered (its `eventJson`), so it can be sent again; absent when it is over
   * `MAX_LOGGED_EVENT_BYTES` (`delivery/rules/decide.ts`).
   */
  eventJson?: string;
  /** The delivery this one sends again (a resend), when it is one. */
  resendOf?: string;
  next: AttemptNext;
}
