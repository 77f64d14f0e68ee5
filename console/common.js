/**
 * What every part of the console and the portal shares: the session token (from the URL's
 * fragment), the client of the console's API (`/console/api/...`, the token as a bearer token,
 * a refused session told apart; it calls through openapi-fetch, the typed client of the API's
 * description), topic paths, polling, the formats of times and counts, and the small pieces
 * every view shows (an error in place, a health state, labels, pause and resume).
 */
import htm from 'htm';
import createClient from 'openapi-fetch';
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export const html = htm.bind(h);

export const TOKEN_KEY = 'gridwire.sessionToken';
/** Where the page's API is: the admin API's paths after `/admin`, for a session token. */
export const API = '/console/api';
/** How often the counters are read, and everything else (ms). */
export const COUNTERS_EVERY_MS = 2000;
export const REFRESH_EVERY_MS = 5000;

/** The token in the address's fragment (`#token=...`), if there is one. */
const tokenInAddress = () => new URLSearchParams(window.location.hash.slice(1)).get('token');

/** Whether the address's fragment carries a token (a new link opened in this tab). */
export const addressHasToken = () => {
  const token = tokenInAddress();
  return token !== null && token !== '';
};

/** The session token from the fragment (then kept and taken out of the address bar), or the kept one. */
export function takeToken() {
  const fromUrl = tokenInAddress();
  if (fromUrl !== null && fromUrl !== '') {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** An API answer other than 2xx, with the API's own message and code. */
export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * Why the API refused the session, by the 401's `error.code`: `expired` (past its end) or
 * `invalid` (forged, malformed, revoked, or no token); undefined for any other answer.
 */
export function refusalOf(status, code) {
  if (status !== 401) return undefined;
  if (code === 'SessionExpired') return 'expired';
  if (code === 'SessionInvalid' || code === 'SessionRequired') return 'invalid';
  return undefined;
}

/**
 * A client of the console's API carrying `token`; `onRefused(reason)` is called when the API
 * refuses the session (a 401 `SessionExpired`: `expired`; `SessionInvalid` or `SessionRequired`:
 * `invalid`). Answers are JSON; an error answer throws an {@link ApiError} with its
 * `error.message` (or `message`) and `error.code`. `path` is the concrete path (and query),
 * which openapi-fetch sends as given; a body is sent as JSON.
 */
export function apiClient(token, onRefused) {
  /** @type {import('../shared/client/api').GridwireApiClient} */
  const client = createClient({
    baseUrl: '',
    cache: 'no-store',
    headers: { authorization: `Bearer ${token}` },
  });
  return async (method, path, body) => {
    // As text, parsed here: an answer that is not JSON is no answer, as it always was.
    const { data, error, response } = await client.request(method, path, { body, parseAs: 'text' });
    if (!response.ok) {
      // openapi-fetch gives an error answer's JSON parsed, or its text when it is not JSON.
      const text = error === undefined ? '' : typeof error === 'string' ? error : JSON.stringify(error);
      const code = error?.error?.code;
      const refusal = refusalOf(response.status, code);
      if (refusal !== undefined) onRefused(refusal);
      const message = error?.error?.message ?? error?.message ?? (text.slice(0, 300) || response.statusText);
      throw new ApiError(response.status, `HTTP ${response.status}: ${message}`, code);
    }
    try {
      return data === undefined || data === '' ? undefined : JSON.parse(data);
    } catch {
      return undefined;
    }
  };
}

export const segment = encodeURIComponent;

/** The API path of a topic: a classic topic, or a namespace's. */
export const topicPath = (topic) =>
  topic.namespace === undefined
    ? `${API}/topics/${segment(topic.name)}`
    : `${API}/namespaces/${segment(topic.namespace)}/topics/${segment(topic.name)}`;

/** The API path of a subscription of `topic`. */
export const subscriptionPath = (topic, name) => `${topicPath(topic)}/eventSubscriptions/${segment(name)}`;

export const topicLabel = (topic) =>
  topic.namespace === undefined ? topic.name : `${topic.namespace}/${topic.name}`;

/** A subscription document's destination: a topic subscription's, or a namespace push subscription's. */
export const destinationOf = (subscription) =>
  subscription.properties?.destination ?? subscription.properties?.deliveryConfiguration?.push?.destination;

/** A subscription document's dead-letter destination, if it has one (either kind of subscription). */
export const deadLetterDestinationOf = (subscription) =>
  subscription.properties?.deadLetterDestination ??
  subscription.properties?.deliveryConfiguration?.push?.deadLetterDestinationWithResourceIdentity
    ?.deadLetterDestination;

/** A subscription document's filter (either kind of subscription). */
export const filterOf = (subscription) =>
  subscription.properties?.filter ?? subscription.properties?.filtersConfiguration ?? {};

/** Each subscription of the topic with its health. */
export async function loadSubscriptions(api, topic) {
  const list = (await api('GET', `${topicPath(topic)}/eventSubscriptions`))?.value ?? [];
  return Promise.all(
    list.map(async (subscription) => {
      try {
        const health = await api('GET', `${subscriptionPath(topic, subscription.name)}/health`);
        return { subscription, health };
      } catch (error) {
        return { subscription, healthError: error.message };
      }
    }),
  );
}

/**
 * Calls `load` now and again `everyMs` after each answer, while the component is mounted (or
 * until `key` changes, which starts over). `refresh()` loads again at once. `stop(error)`, when
 * given, ends the loop on an error it answers true for (a route this stack does not have).
 */
export function usePolling(load, everyMs, key, stop) {
  const [state, setState] = useState({ data: undefined, error: undefined, loaded: false, stopped: false });
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const stopRef = useRef(stop);
  stopRef.current = stop;
  // A new key or round starts the loop over.
  useEffect(() => {
    let stopped = false;
    let timer;
    const run = async () => {
      try {
        const data = await loadRef.current();
        if (!stopped) setState({ data, error: undefined, loaded: true, stopped: false });
      } catch (error) {
        if (!stopped && stopRef.current?.(error) === true) {
          setState((previous) => ({ ...previous, error: undefined, loaded: true, stopped: true }));
          return;
        }
        if (!stopped) setState((previous) => ({ ...previous, error: error.message, loaded: true }));
      }
      if (!stopped) timer = setTimeout(run, everyMs);
    };
    run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key, round, everyMs]);
  return { ...state, refresh: () => setRound((value) => value + 1) };
}

export const time = (iso) => (iso === undefined || iso === null ? '–' : new Date(iso).toLocaleString());
export const clock = (iso) => (iso === undefined || iso === null ? '–' : new Date(iso).toLocaleTimeString());
export const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** When a session ends, in words: its time, and how long until then. */
export function sessionEnd(iso) {
  const minutes = Math.round((Date.parse(iso) - Date.now()) / 60_000);
  const left =
    minutes < 1
      ? 'in less than a minute'
      : minutes < 90
        ? `in ${plural(minutes, 'minute')}`
        : `in about ${plural(Math.round(minutes / 60), 'hour')}`;
  return `${time(iso)} (${left})`;
}

/** When the session ends, for the page's header: `words` ("Session ends") and the time. */
export function SessionEnd({ session, words }) {
  return html`<span class="session-end" data-testid="session-end" title=${session.expiresAt}>
    ${words} ${sessionEnd(session.expiresAt)}
  </span>`;
}

export function ErrorText({ message }) {
  return message === undefined ? null : html`<p class="error" role="alert">${message}</p>`;
}

/**
 * What an action of a toolbar is doing: `busyText` while `state.busy`, then its result (a status)
 * or the API's refusal (an alert).
 */
export function ActionStatus({ state, busyText }) {
  return html`
    ${state.busy ? html`<span class="muted">${busyText}</span>` : null}
    ${state.result === undefined ? null : html`<span class="ok-inline" role="status">${state.result}</span>`}
    ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
  `;
}

export function StateBadge({ state }) {
  const name = state ?? 'Unknown';
  return html`<span class=${`badge state-${name.toLowerCase()}`} data-testid="health-state">${name}</span>`;
}

/** How a subscription's events are delivered in order: `Ordered by: data.orderId`, or `not ordered`. */
export const orderedDeliveryText = (subscription) => {
  const key = subscription.properties?.orderedDelivery?.key;
  return typeof key === 'string' ? `Ordered by: ${key}` : 'not ordered';
};

/** A subscription's delivery order as a term of a `dl`: its key, or that it keeps none. */
export function DeliveryOrder({ subscription }) {
  return html`<div><dt>Delivery order</dt><dd data-testid="ordered-delivery">${orderedDeliveryText(subscription)}</dd></div>`;
}

/** A subscription's labels (`tenant=acme`), each a chip; a dash without any. */
export function Labels({ labels }) {
  if (!Array.isArray(labels) || labels.length === 0) return html`<span class="muted">–</span>`;
  return html`
    <span class="labels" data-testid="labels">
      ${labels.map((label) => html`<span key=${label} class="label-chip">${label}</span>`)}
    </span>
  `;
}

/** The pause or resume button of a subscription; `onHealth` gets the health the API answers. */
export function PauseButton({ api, base, health, onHealth }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(undefined);
  const paused = health?.state === 'Paused';
  const act = async (event) => {
    event.stopPropagation();
    setBusy(true);
    setError(undefined);
    try {
      onHealth(await api('POST', `${base}/${paused ? 'resume' : 'pause'}`));
    } catch (failure) {
      setError(failure.message);
    } finally {
      setBusy(false);
    }
  };
  return html`
    <button type="button" class="secondary" disabled=${busy || health === undefined} onClick=${act}>
      ${busy ? (paused ? 'Resuming…' : 'Pausing…') : paused ? 'Resume' : 'Pause'}
    </button>
    ${error === undefined ? null : html`<span class="error-inline" role="alert">${error}</span>`}
  `;
}

/** An endpoint's health in a row of terms: state, failures, last outcome and times, what is held. */
export function HealthSummary({ health }) {
  if (health === undefined) return null;
  const items = [
    ['State', html`<${StateBadge} state=${health.state} />`],
    ['Consecutive failures', health.consecutiveFailures],
    ['Last outcome', health.lastOutcome ?? '–'],
    // Successes are recorded only once an endpoint has failed (so a healthy endpoint costs no
    // write per delivery): with no failure on record there is no time to show, and none is missing.
    ...(health.lastSuccessAt === null
      ? health.lastFailureAt === null
        ? [['Failures', 'none recorded']]
        : [['Last success', 'none since it started failing']]
      : [['Last success', time(health.lastSuccessAt)]]),
    ...(health.lastFailureAt === null ? [] : [['Last failure', time(health.lastFailureAt)]]),
    ...(health.probationUntil === null ? [] : [['On probation until', time(health.probationUntil)]]),
    ...(health.pausedAt === null ? [] : [['Paused since', time(health.pausedAt)]]),
    ...(health.disabledAt === null || health.disabledAt === undefined
      ? []
      : [['Disabled since', `${time(health.disabledAt)} (${health.disabledReason})`]]),
    [
      'Held events',
      health.held === null || health.held === undefined
        ? 'none'
        : `${health.held.events} (${health.held.state}${health.held.until === undefined ? '' : ` until ${clock(health.held.until)}`})`,
    ],
  ];
  return html`
    <dl class="health" aria-label="Endpoint health">
      ${items.map(([label, value]) => html`<div key=${label}><dt>${label}</dt><dd>${value}</dd></div>`)}
    </dl>
  `;
}

/**
 * Shown in place of the page when the API refused the session: `expired` (past its end) or
 * `invalid` (not valid, or revoked); `portal` words the advice for the portal's user.
 */
export function SessionRefused({ reason, portal }) {
  const expired = reason === 'expired';
  return html`
    <main class="needs-token" data-testid="session-refused" data-reason=${reason}>
      <h1>${expired ? 'Session expired' : 'Session not valid'}</h1>
      <p class="lead">
        ${
          expired
            ? 'The session this page was opened with has ended, so it shows nothing more.'
            : 'The session token of this link is not valid: it was revoked (every session made before a revoke-all ends), or it is not one this stack made.'
        }
      </p>
      ${portal ? html`<p>Ask whoever gave you this link for a new one.</p>` : null}
      <p>
        A new link comes from the command line: <code>gridwire console</code> prints a console link
        (with <code>--api "$API_URL"</code> for a deployed stack), <code>gridwire portal-link</code> a portal
        link; in the local stack <code>npm start</code> prints a console link when it starts.
      </p>
    </main>
  `;
}
