/**
 * A subscription's message log in the console and the portal: its deliveries newest first over a
 * window, each opening to every attempt (outcome, HTTP status, duration, the start of the
 * answer), and resend (left out where the session may not resend).
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { clock, ErrorText, html, REFRESH_EVERY_MS, time, usePolling } from './common.js';

const WINDOWS = [
  [15 * 60_000, 'Last 15 minutes'],
  [3_600_000, 'Last hour'],
  [24 * 3_600_000, 'Last 24 hours'],
];

/** The `since` of a window ending now. */
const windowStart = (windowMs) => new Date(Date.now() - windowMs).toISOString();

/**
 * The subscription's message log in the chosen window, newest first (the newest page every 5 s,
 * older pages on demand), each delivery with its attempts and, with `canResend`, a resend button.
 */
export function MessageLog({ api, base, canResend = true }) {
  const [windowMs, setWindowMs] = useState(3_600_000);
  const [open, setOpen] = useState({});
  const [older, setOlder] = useState({ deliveries: [], nextUntil: undefined, error: undefined });
  const log = usePolling(
    () => api('GET', `${base}/deliveries?since=${encodeURIComponent(windowStart(windowMs))}`),
    REFRESH_EVERY_MS,
    windowMs,
  );
  useEffect(() => setOlder({ deliveries: [], nextUntil: undefined, error: undefined }), [windowMs]);
  const newest = log.data?.value ?? [];
  const listed = new Set(newest.map((delivery) => delivery.deliveryId));
  const deliveries = [...newest, ...older.deliveries.filter((delivery) => !listed.has(delivery.deliveryId))];
  const nextUntil = older.deliveries.length > 0 ? older.nextUntil : log.data?.nextUntil;
  const loadOlder = async () => {
    try {
      const page = await api(
        'GET',
        `${base}/deliveries?since=${encodeURIComponent(windowStart(windowMs))}&until=${encodeURIComponent(nextUntil)}`,
      );
      setOlder((previous) => ({
        deliveries: [...previous.deliveries, ...(page?.value ?? [])],
        nextUntil: page?.nextUntil,
        error: undefined,
      }));
    } catch (error) {
      setOlder((previous) => ({ ...previous, error: error.message }));
    }
  };
  const toggle = (id) => setOpen((previous) => ({ ...previous, [id]: !previous[id] }));
  return html`
    <div class="log" data-testid="message-log">
      <div class="toolbar">
        <label>
          Window
          <select value=${windowMs} onChange=${(event) => setWindowMs(Number(event.currentTarget.value))}>
            ${WINDOWS.map(([ms, label]) => html`<option key=${ms} value=${ms}>${label}</option>`)}
          </select>
        </label>
        <button type="button" class="secondary" onClick=${log.refresh}>Refresh</button>
        ${
          log.data?.deliveryLog === 'Failures'
            ? html`<span class="muted" data-testid="log-mode">
                Failures only: deliveries that succeeded at their first attempt are not logged
                (<code>properties.deliveryLog</code> <code>All</code> logs every delivery).
              </span>`
            : null
        }
      </div>
      <${ErrorText} message=${log.error ?? older.error} />
      ${log.loaded && log.error === undefined && deliveries.length === 0 ? html`<p class="muted">No deliveries logged in this window.</p>` : null}
      ${
        deliveries.length === 0
          ? null
          : html`
            <table class="deliveries" aria-label="Message log">
              <thead>
                <tr><th></th><th>Published</th><th>Event</th><th>Status</th><th class="num">Attempts</th><th>Last answer</th><th></th></tr>
              </thead>
              <tbody>
                ${deliveries.map((delivery) => {
                  const last = delivery.attempts[delivery.attempts.length - 1];
                  const expanded = open[delivery.deliveryId] === true;
                  // Keyed as a whole: a delivery listed above it (a resend, a newer page) must not
                  // hand this row's state (an answer shown, a resend under way) to another row.
                  return html`
                    <${Fragment} key=${delivery.deliveryId}>
                    <tr data-testid="delivery-row" data-event-id=${delivery.eventId}>
                      <td>
                        <button
                          type="button"
                          class="expand"
                          aria-expanded=${expanded ? 'true' : 'false'}
                          aria-label=${`${expanded ? 'Hide' : 'Show'} the attempts of ${delivery.eventId}`}
                          onClick=${() => toggle(delivery.deliveryId)}
                        >
                          ${expanded ? '▾' : '▸'}
                        </button>
                      </td>
                      <td class="when">${time(delivery.publishTime)}</td>
                      <td class="mono">
                        ${delivery.eventId}
                        ${delivery.resendOf === undefined ? null : html`<div class="muted small">resend of ${delivery.resendOf}</div>`}
                      </td>
                      <td>
                        <span class=${`badge status-${delivery.status.toLowerCase()}`}>${delivery.status}</span>
                        ${delivery.reason === undefined ? null : html` <span class="muted">${delivery.reason}</span>`}
                        ${delivery.nextAttemptTime === undefined ? null : html` <span class="muted">next ${clock(delivery.nextAttemptTime)}</span>`}
                      </td>
                      <td class="num">${delivery.attempts.length}</td>
                      <td>${last === undefined ? '–' : `${last.outcome}${last.httpStatus === undefined ? '' : ` (${last.httpStatus})`}`}</td>
                      <td class="actions">${canResend ? html`<${ResendButton} api=${api} base=${base} delivery=${delivery} />` : null}</td>
                    </tr>
                    ${expanded ? html`<tr class="attempts-row"><td colspan="7"><${Attempts} attempts=${delivery.attempts} /></td></tr>` : null}
                    <//>
                  `;
                })}
              </tbody>
            </table>
          `
      }
      ${nextUntil === undefined ? null : html`<button type="button" class="secondary more" onClick=${loadOlder}>Older deliveries</button>`}
    </div>
  `;
}

function Attempts({ attempts }) {
  return html`
    <table class="attempts" aria-label="Attempts">
      <thead>
        <tr><th class="num">#</th><th>Time</th><th>Outcome</th><th class="num">HTTP</th><th class="num">Duration</th><th>Answer</th></tr>
      </thead>
      <tbody>
        ${attempts.map(
          (attempt) => html`
            <tr key=${attempt.attempt} data-testid="attempt-row">
              <td class="num">${attempt.attempt}</td>
              <td class="when">${time(attempt.time)}</td>
              <td>${attempt.outcome}</td>
              <td class="num">${attempt.httpStatus ?? '–'}</td>
              <td class="num">${attempt.durationMs === undefined ? '–' : `${Math.round(attempt.durationMs)} ms`}</td>
              <td>
                ${attempt.error === undefined ? null : html`<div class="error-inline">${attempt.error}</div>`}
                ${
                  attempt.response === undefined
                    ? attempt.error === undefined
                      ? '–'
                      : null
                    : attempt.response === ''
                      ? html`<span class="muted">(empty body)</span>`
                      : html`<pre class="excerpt">${attempt.response}</pre>`
                }
              </td>
            </tr>
          `,
        )}
      </tbody>
    </table>
  `;
}

/**
 * Sends the delivery's event to the subscription again as a new delivery; shows what the API
 * answered. Only an event whose text the log holds can be sent again.
 */
function ResendButton({ api, base, delivery }) {
  const [state, setState] = useState({ busy: false });
  const logged = delivery.eventLogged !== false;
  const resend = async () => {
    setState({ busy: true });
    try {
      const answer = await api('POST', `${base}/resend`, {
        eventId: delivery.eventId,
        deliveryId: delivery.deliveryId,
      });
      setState({
        busy: false,
        result: answer?.deliveryId === undefined ? 'Resent' : `Resent as ${answer.deliveryId}`,
      });
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  return html`
    <button
      type="button"
      class="secondary"
      disabled=${state.busy || !logged}
      title=${logged ? 'Send this event again as a new delivery' : "The log does not hold this event's text"}
      onClick=${resend}
    >
      ${state.busy ? 'Resending…' : 'Resend'}
    </button>
    ${state.result === undefined ? null : html`<span class="ok-inline" role="status">${state.result}</span>`}
    ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
  `;
}
