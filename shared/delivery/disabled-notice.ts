/**
 * The notice Gridwire raises when it disables a subscription whose endpoint has failed every
 * attempt for its `disableAfterFailingFor`: a `Gridwire.SubscriptionDisabled` event on the stack's
 * system topic, the one the dead-letter notices go to, so one subscription there can page someone.
 * Its id is made of the subscription and the time it was disabled, so a notice sent twice is
 * recognisable as the same one.
 */

import type { EndpointHealth } from '../domain/health';
import type { Subscription } from '../domain/model';
import { splitNamespaceTopicId } from '../domain/names';
import { DEAD_LETTER_NOTICES, noticeSubject } from './rules/dead-letter-notice';

export const SUBSCRIPTION_DISABLED = {
  /** The system topic: the dead-letter notices' own. */
  topic: DEAD_LETTER_NOTICES.topic,
  eventType: 'Gridwire.SubscriptionDisabled',
  dataVersion: '1',
} as const;

/** What the notice says: `data` of a `Gridwire.SubscriptionDisabled` event. */
export interface SubscriptionDisabledData {
  /** The subscription's topic: a classic topic's name, or `<namespace>/<topic>`. */
  topic: string;
  subscription: string;
  reason: 'FailingTooLong';
  /** The endpoint as stored (its query string, when it has one, is sealed apart and left out). */
  endpointUrl: string;
  /** When its endpoint first failed without a success since (ISO). */
  failingSince: string;
  /** When it was disabled (ISO). */
  disabledAt: string;
  consecutiveFailures: number;
  lastOutcome: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The notice for `subscription`, disabled as `health` says, as an Event Grid event. */
export function subscriptionDisabledNotice(
  subscription: Pick<Subscription, 'topic' | 'name'>,
  health: EndpointHealth,
) {
  const disabledAt = health.disabledAt ?? 0;
  const parts = splitNamespaceTopicId(subscription.topic);
  const ref =
    parts === undefined ? { name: subscription.topic } : { namespace: parts.namespace, name: parts.topic };
  const data: SubscriptionDisabledData = {
    topic: subscription.topic,
    subscription: subscription.name,
    reason: 'FailingTooLong',
    endpointUrl: health.endpointUrl,
    failingSince: iso(health.failingSince ?? disabledAt),
    disabledAt: iso(disabledAt),
    consecutiveFailures: health.consecutiveFailures,
    lastOutcome: health.lastOutcome ?? 'GenericError',
  };
  return {
    id: `disabled:${subscription.topic.toLowerCase()}/${subscription.name.toLowerCase()}:${disabledAt}`,
    eventType: SUBSCRIPTION_DISABLED.eventType,
    subject: noticeSubject(ref, subscription.name),
    eventTime: iso(disabledAt),
    dataVersion: SUBSCRIPTION_DISABLED.dataVersion,
    data,
  };
}
