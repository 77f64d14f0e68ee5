/**
 * A subscription's replays from its topic's archive, in the console and the portal: each replay
 * newest first with its state, range, event types, the events it found, queued and delivered,
 * and when it was made, read again every 5 seconds; a form to start one (`POST .../replays` with
 * since, until and event types, the last two optional) and Cancel on a running one (`DELETE
 * .../replays/{id}`), both left out where the session may not replay. A topic that keeps no
 * archive is said to have nothing to replay. The API's refusals are shown as it words them.
 */
import { useState } from 'preact/hooks';
import { ActionStatus, ErrorText, html, REFRESH_EVERY_MS, time, usePolling } from './common.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The API path of the topic of the subscription at `base`. */
const topicPathOf = (base) => base.slice(0, base.lastIndexOf('/eventSubscriptions/'));

/** A `datetime-local` field's value for `ms`: local time, to the minute. */
function localFieldValue(ms) {
  const date = new Date(ms);
  const two = (value) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A `datetime-local` field's value as the API takes it (ISO 8601); what the field held when it is no time. */
function instantOf(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** The event types of a field: names separated by commas or spaces. */
const eventTypesOf = (text) => text.split(/[\s,]+/).filter((type) => type !== '');

/** The subscription's replays and its topic's archive (`null` when it keeps none). */
async function loadReplays(api, base) {
  const [list, topic] = await Promise.all([api('GET', `${base}/replays`), api('GET', topicPathOf(base))]);
  return { replays: list?.value ?? [], archive: topic?.properties?.archive ?? null };
}

/** How long the archive keeps events, in words. */
const keptText = (days) => (days === 1 ? '1 day' : `${days} days`);

/** The form that starts a replay; `onStarted(replay)` gets the API's answer. */
function StartReplay({ api, base, archive, onStarted }) {
  const [fields, setFields] = useState(() => ({
    since: localFieldValue(Date.now() - HOUR_MS),
    until: '',
    types: '',
  }));
  const [state, setState] = useState({ busy: false });
  const field = (name) => (event) => {
    const { value } = event.currentTarget;
    setFields((previous) => ({ ...previous, [name]: value }));
  };
  const days = archive.retentionInDays;
  const submit = async (event) => {
    event.preventDefault();
    const types = eventTypesOf(fields.types);
    const body = {
      since: instantOf(fields.since),
      ...(fields.until === '' ? {} : { until: instantOf(fields.until) }),
      ...(types.length === 0 ? {} : { eventTypes: types }),
    };
    setState({ busy: true });
    try {
      const replay = await api('POST', `${base}/replays`, body);
      setState({ busy: false });
      onStarted(replay);
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  return html`
    <form class="endpoint-form replay-form" aria-label="Start a replay" onSubmit=${submit}>
      <h4>Start a replay</h4>
      <p class="muted small">
        Sends the subscription again the events the topic accepted in the range, through its filter, as new
        deliveries.
        ${days === undefined ? null : ` The archive keeps ${keptText(days)}: since may be ${time(new Date(Date.now() - days * DAY_MS).toISOString())} at the earliest.`}
      </p>
      <div class="field-row">
        <div class="field">
          <label for="replay-since">Since</label>
          <input id="replay-since" type="datetime-local" required value=${fields.since} onInput=${field('since')} />
        </div>
        <div class="field">
          <label for="replay-until">Until</label>
          <input id="replay-until" type="datetime-local" value=${fields.until} onInput=${field('until')} />
          <span class="muted small">Empty: now.</span>
        </div>
      </div>
      <div class="field">
        <label for="replay-types">Event types</label>
        <input id="replay-types" value=${fields.types} onInput=${field('types')} placeholder="Order.Created, Order.Shipped" />
        <span class="muted small">Separated by commas; empty: every type the subscription takes.</span>
      </div>
      <div class="toolbar">
        <button type="submit" disabled=${state.busy}>${state.busy ? 'Starting…' : 'Start replay'}</button>
        ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
      </div>
    </form>
  `;
}

/** A replay's state, with why it ended when the API says. */
function ReplayState({ replay }) {
  return html`
    <span class=${`badge replay-${replay.state.toLowerCase()}`} data-testid="replay-state">${replay.state}</span>
    ${replay.reason === undefined ? null : html`<div class="muted small">${replay.reason}</div>`}
  `;
}

/**
 * The subscription's replays, with a form to start one and Cancel on a running one when
 * `canStart`. `archiveAdvice` says, under the note that the topic keeps no archive, how to get one.
 */
export function Replays({ api, base, canStart = true, archiveAdvice }) {
  const loaded = usePolling(() => loadReplays(api, base), REFRESH_EVERY_MS, base);
  // Replays this page started, shown until the list has them.
  const [started, setStarted] = useState([]);
  const [action, setAction] = useState({ busy: false });
  const listed = loaded.data?.replays ?? [];
  const replays = [...started.filter((replay) => !listed.some(({ id }) => id === replay.id)), ...listed];
  const archive = loaded.data?.archive;
  const onStarted = (replay) => {
    setStarted((previous) => [replay, ...previous]);
    setAction({ busy: false, result: `Replay ${replay.id} started.` });
    loaded.refresh();
  };
  const cancel = async (replay) => {
    setAction({ busy: true });
    const path = `${base}/replays/${encodeURIComponent(replay.id)}`;
    try {
      await api('DELETE', path);
      const after = await api('GET', path);
      setAction({
        busy: false,
        result:
          after?.state === 'Cancelled'
            ? `Replay ${replay.id} cancelled.`
            : `Replay ${replay.id} had ended already (${after?.state}).`,
      });
      setStarted([]);
      loaded.refresh();
    } catch (error) {
      setAction({ busy: false, error: error.message });
    }
  };
  return html`
    <div class="replays" data-testid="replays">
      <div class="toolbar">
        <button type="button" class="secondary" onClick=${loaded.refresh}>Refresh</button>
        <${ActionStatus} state=${action} busyText="Cancelling…" />
      </div>
      <${ErrorText} message=${loaded.error} />
      ${
        archive === null
          ? html`<p class="note muted" data-testid="no-archive">
              This topic keeps no archive, so there are no past events to replay.
              ${archiveAdvice ?? ' Give it one (gridwire topic update <topic> --archive-retention <days>, or properties.archive in the admin API): the events it accepts from then on can be replayed.'}
            </p>`
          : null
      }
      ${archive && canStart ? html`<${StartReplay} api=${api} base=${base} archive=${archive} onStarted=${onStarted} />` : null}
      ${loaded.loaded && loaded.error === undefined && replays.length === 0 ? html`<p class="muted">No replays.</p>` : null}
      ${
        replays.length === 0
          ? null
          : html`
            <table class="replays-list" aria-label="Replays">
              <thead>
                <tr>
                  <th>State</th><th>Range</th><th>Event types</th><th class="num">Found</th><th class="num">Queued</th>
                  <th class="num">Delivered</th><th>Created</th><th></th>
                </tr>
              </thead>
              <tbody>
                ${replays.map(
                  (replay) => html`
                    <tr key=${replay.id} data-testid="replay-row" data-id=${replay.id} data-state=${replay.state}>
                      <td><${ReplayState} replay=${replay} /></td>
                      <td class="range">
                        <div>${time(replay.since)}</div>
                        <div class="muted">to ${time(replay.until)}</div>
                      </td>
                      <td>${replay.eventTypes?.join(', ') ?? 'all'}</td>
                      <td class="num" data-testid="replay-found">${replay.eventsFound}</td>
                      <td class="num" data-testid="replay-queued">${replay.eventsQueued}</td>
                      <td class="num" data-testid="replay-delivered">${replay.eventsDelivered ?? '–'}</td>
                      <td class="when">${time(replay.createdAt)}</td>
                      <td class="actions">
                        ${
                          canStart && replay.state === 'Running'
                            ? html`<button
                                type="button"
                                class="secondary danger"
                                disabled=${action.busy}
                                onClick=${() => cancel(replay)}
                              >
                                Cancel
                              </button>`
                            : null
                        }
                      </td>
                    </tr>
                  `,
                )}
              </tbody>
            </table>
          `
      }
    </div>
  `;
}
