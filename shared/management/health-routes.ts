/**
 * The endpoint-health routes of a subscription (`health`, `enable`), for classic and namespace
 * subscriptions alike: only how the subscription is found differs. Health records are keyed by
 * the subscription's topic identity (a classic topic's name, or `<namespace>/<topic>`).
 */
import { certificateWarning } from '../delivery/rules/endpoint-tls';
import { currentHealth } from '../delivery/rules/health';
import { deliveryTargetOf } from '../delivery/target';
import { endpointIdOf, type Subscription, webhookTlsOf } from '../domain/model';
import { jsonResult } from '../http/api-gateway';
import { resetHealth, rewriteHealth } from '../storage/health';
import { type BacklogWakeDeps, wakeBacklog } from './backlog-wake';
import type { ClockDeps, HealthDeps } from './deps';
import type { Operations, SubscriptionFinder } from './operation';
import { healthDocument, provisioningProperties } from './resource-documents';

/** What the health routes use: the endpoint health, the backlog's index and its tick, the time. */
export type HealthRouteDeps = HealthDeps & BacklogWakeDeps & ClockDeps;

/**
 * The health of the subscription's endpoint, with its provisioning state (and, while its
 * endpoint has not agreed, how its validation stands), read strongly consistently; a record about another
 * endpoint URL (the subscription was aimed elsewhere since) shows as fresh. What its backlog holds
 * comes from the backlog's index (one strongly consistent read), only the current uid's events.
 */
async function healthOf(deps: HealthRouteDeps, subscription: Subscription) {
  const { topic, name, destination } = subscription;
  const [stored, backlog] = await Promise.all([
    deps.healthStore.get(topic, name, { consistent: true }),
    deps.backlog.overview(topic, name, subscription.uid),
  ]);
  const nowMs = deps.clock.now();
  const certificate = certificateWarning(webhookTlsOf(destination), nowMs);
  return {
    ...healthDocument(currentHealth(stored, topic, name, endpointIdOf(destination)), nowMs, backlog),
    // Whether the endpoint agreed to receive: one that has not is sent nothing, however healthy.
    ...provisioningProperties(subscription, nowMs),
    // A client certificate that expires within 30 days (or has).
    ...(certificate === undefined ? {} : { warnings: [certificate] }),
  };
}

/**
 * Pauses the subscription (`at`: since when) or (`undefined`) resumes it: only the pause changes
 * in its endpoint's health record, written one revision up over what workers wrote.
 */
function setPaused(deps: HealthDeps, subscription: Subscription, at: number | undefined): Promise<void> {
  const { topic, name, destination } = subscription;
  return rewriteHealth(deps.healthStore, topic, name, (stored) => {
    const current = currentHealth(stored, topic, name, endpointIdOf(destination));
    if ((current.pausedAt !== undefined) === (at !== undefined)) return undefined;
    const { rev: _rev, pausedAt: _pausedAt, ...rest } = current;
    return at === undefined ? rest : { ...rest, pausedAt: at };
  });
}

/**
 * `GET <subscription>/health`, `POST <subscription>/enable`, and `pause` and `resume`: a paused
 * subscription's events are held (their time to live running) until it is resumed.
 */
export function healthOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & HealthRouteDeps> {
  return {
    [`GET ${subscriptionPath}/health`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      return jsonResult(200, await healthOf(deps, subscription));
    },
    [`POST ${subscriptionPath}/pause`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      await setPaused(deps, subscription, deps.clock.now());
      // Workers may trust their cached health this long: answer once none sends any more.
      await deps.clock.sleep(deps.healthCacheMs);
      return jsonResult(200, await healthOf(deps, subscription));
    },
    [`POST ${subscriptionPath}/resume`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      await setPaused(deps, subscription, undefined);
      await deps.clock.sleep(deps.healthCacheMs);
      // The held events go now, not at the end of the hold the backlog last saw.
      await wakeBacklog(deps, deliveryTargetOf(subscription), 'resumed');
      return jsonResult(200, await healthOf(deps, subscription));
    },
    [`POST ${subscriptionPath}/enable`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      // A reset record: the endpoint is healthy, probation ends, and a disabled (410) one takes
      // deliveries again; outcomes workers saw before it no longer count. Workers may trust their
      // cached copy this long; answer once they let it go.
      await resetHealth(deps.healthStore, subscription.topic, subscription.name, deps.clock.now());
      await deps.clock.sleep(deps.healthCacheMs);
      // Held events go now rather than at the end of the hold the backlog last saw; sent once
      // workers let their cached health go, so the drain's attempts are let through.
      await wakeBacklog(deps, deliveryTargetOf(subscription), 'enabled');
      return jsonResult(200, await healthOf(deps, subscription));
    },
  };
}
