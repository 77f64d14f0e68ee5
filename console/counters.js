/**
 * The console's live counters (the local stack only): the stack's totals since it started, read
 * from `GET /local/status` every 2 seconds; not shown where the stack has no such route.
 */
import { COUNTERS_EVERY_MS, html, time, usePolling } from './common.js';

/** A stack-wide counter: the sum of a metric's series without dimensions. */
const stackTotal = (status, name) =>
  status.metrics
    .filter((metric) => metric.name === name && Object.keys(metric.dimensions).length === 0)
    .reduce((sum, metric) => sum + metric.sum, 0);

const COUNTERS = [
  ['published', 'PublishSuccessCount', 'Published'],
  ['matched', 'MatchedEventCount', 'Matched'],
  ['delivered', 'DeliverySuccessCount', 'Delivered'],
  ['failed', 'DeliveryAttemptFailCount', 'Failed attempts'],
  ['dead-lettered', 'DeadLetteredCount', 'Dead-lettered'],
  ['dropped', 'DroppedEventCount', 'Dropped'],
];

/**
 * Live counters from `GET /local/status`, every 2 s: the local stack's own route. A deployed
 * stack has no such route (a 404), so there the counters are not shown at all.
 */
export function Counters({ api }) {
  const status = usePolling(
    () => api('GET', '/local/status'),
    COUNTERS_EVERY_MS,
    'status',
    (error) => error.status === 404,
  );
  const data = status.data;
  if (status.stopped || data === undefined) return null;
  const queued = (names) =>
    (data.queues ?? [])
      .filter((queue) => names.includes(queue.queue))
      .reduce((sum, queue) => sum + queue.visible + queue.inFlight + queue.delayed, 0);
  return html`
    <section class="counters" aria-label="Live counters">
      ${COUNTERS.map(
        ([id, metric, label]) => html`
          <div class="counter" key=${id}>
            <span class="value" data-testid=${`counter-${id}`}>${stackTotal(data, metric)}</span>
            <span class="label">${label}</span>
          </div>
        `,
      )}
      <div class="counter">
        <span class="value" data-testid="counter-queued">${queued(['delivery', 'retry'])}</span>
        <span class="label">In delivery queues</span>
      </div>
      <div class="counter">
        <span class="value" data-testid="counter-redrive">
          ${(data.queues ?? []).reduce((sum, queue) => sum + queue.redrive, 0)}
        </span>
        <span class="label">Parked (redrive)</span>
      </div>
      <p class="since">
        Local stack, since ${time(data.since)}
        ${status.error === undefined ? null : html`<span class="error-inline" role="alert">${status.error}</span>`}
      </p>
    </section>
  `;
}
