/**
 * The Gridwire console: the local stack's topics (and namespaces' topics), each topic's event
 * subscriptions with their endpoint health, pause and resume, a subscription's message log (every
 * attempt: outcome, HTTP status, duration, the start of the answer) with resend, its dead letters
 * with replay, and live counters. Everything refreshes on its own, without a reload.
 *
 * A browser ES module with no build step: preact and htm are served by the local stack
 * (`/console/vendor/`, named by the import map in index.html). Every call goes to the admin API
 * with the admin token as a bearer token. The token comes in the URL's fragment
 * (`/console#token=...`, as `gridwire start` prints it; a browser never sends the fragment to a
 * server), is kept in this tab's sessionStorage and taken out of the address bar.
 */
import htm from 'htm';
import { h, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const html = htm.bind(h);

const TOKEN_KEY = 'gridwire.adminToken';
/** How often the counters are read, and everything else (ms). */
const COUNTERS_EVERY_MS = 2000;
const REFRESH_EVERY_MS = 5000;

/** The admin token from the fragment (then kept and taken out of the address bar), or the kept one. */
function takeToken() {
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromUrl !== null && fromUrl !== '') {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** An API answer other than 2xx, with the API's own message. */
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * A client of the admin API carrying `token`; `onRefused` is called when the token is refused
 * (401). Answers are JSON; an error answer throws its `error.message` (or `message`).
 */
function apiClient(token, onRefused) {
  return async (method, path, body) => {
    const response = await fetch(path, {
      method,
      cache: 'no-store',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      if (response.status === 401) onRefused();
      const message = json?.error?.message ?? json?.message ?? (text.slice(0, 300) || response.statusText);
      throw new ApiError(response.status, `HTTP ${response.status}: ${message}`);
    }
    return json;
  };
}

const segment = encodeURIComponent;

/** The admin path of a topic: a classic topic, or a namespace's. */
const topicPath = (topic) =>
  topic.namespace === undefined
    ? `/admin/topics/${segment(topic.name)}`
    : `/admin/namespaces/${segment(topic.namespace)}/topics/${segment(topic.name)}`;

const topicLabel = (topic) =>
  topic.namespace === undefined ? topic.name : `${topic.namespace}/${topic.name}`;

/**
 * Calls `load` now and again `everyMs` after each answer, while the component is mounted (or
 * until `key` changes, which starts over). `refresh()` loads again at once.
 */
function usePolling(load, everyMs, key) {
  const [state, setState] = useState({ data: undefined, error: undefined, loaded: false });
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // A new key or round starts the loop over.
  useEffect(() => {
    let stopped = false;
    let timer;
    const run = async () => {
      try {
        const data = await loadRef.current();
        if (!stopped) setState({ data, error: undefined, loaded: true });
      } catch (error) {
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

const time = (iso) => (iso === undefined || iso === null ? '–' : new Date(iso).toLocaleString());
const clock = (iso) => (iso === undefined || iso === null ? '–' : new Date(iso).toLocaleTimeString());
const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function ErrorText({ message }) {
  return message === undefined ? null : html`<p class="error" role="alert">${message}</p>`;
}

/** Shown without a token, or when the token was refused. */
function NeedsToken({ refused, onToken }) {
  const [value, setValue] = useState('');
  const submit = (event) => {
    event.preventDefault();
    if (value.trim() !== '') onToken(value.trim());
  };
  return html`
    <main class="needs-token" data-testid="needs-token">
      <h1>Gridwire console</h1>
      <p class="lead">
        ${
          refused
            ? 'The local stack refused the admin token this page had (it was restarted with another token?).'
            : 'This page needs the admin token of the local stack.'
        }
      </p>
      <p>
        Open the <strong>Console</strong> address that <code>npm start</code> (<code>gridwire start</code>)
        printed, such as <code>http://127.0.0.1:4000/console#token=…</code>. The token travels after
        the <code>#</code>, which the browser never sends to the server; the page keeps it for this tab only.
      </p>
      <form class="token-form" onSubmit=${submit}>
        <label for="token-input">Or paste the admin token (the <code>admin-token</code> file in the data directory):</label>
        <div class="row">
          <input
            id="token-input"
            type="password"
            autocomplete="off"
            value=${value}
            onInput=${(event) => setValue(event.currentTarget.value)}
          />
          <button type="submit">Open</button>
        </div>
      </form>
    </main>
  `;
}

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

/** Live counters from `GET /local/status`, every 2 s. */
function Counters({ api }) {
  const status = usePolling(() => api('GET', '/local/status'), COUNTERS_EVERY_MS, 'status');
  const data = status.data;
  const queued = (names) =>
    (data?.queues ?? [])
      .filter((queue) => names.includes(queue.queue))
      .reduce((sum, queue) => sum + queue.visible + queue.inFlight + queue.delayed, 0);
  return html`
    <section class="counters" aria-label="Live counters">
      ${COUNTERS.map(
        ([id, metric, label]) => html`
          <div class="counter" key=${id}>
            <span class="value" data-testid=${`counter-${id}`}>${data === undefined ? '–' : stackTotal(data, metric)}</span>
            <span class="label">${label}</span>
          </div>
        `,
      )}
      <div class="counter">
        <span class="value" data-testid="counter-queued">${data === undefined ? '–' : queued(['delivery', 'retry'])}</span>
        <span class="label">In delivery queues</span>
      </div>
      <div class="counter">
        <span class="value" data-testid="counter-redrive">
          ${data === undefined ? '–' : data.queues.reduce((sum, queue) => sum + queue.redrive, 0)}
        </span>
        <span class="label">Parked (redrive)</span>
      </div>
      <p class="since">
        ${data === undefined ? 'Reading…' : `Since ${time(data.since)}`}
        ${status.error === undefined ? null : html`<span class="error-inline" role="alert">${status.error}</span>`}
      </p>
    </section>
  `;
}

/** Topics and namespaces' topics, every 5 s. */
async function loadTopics(api) {
  const [topics, namespaces] = await Promise.all([
    api('GET', '/admin/topics'),
    api('GET', '/admin/namespaces'),
  ]);
  const namespaceTopics = await Promise.all(
    (namespaces?.value ?? []).map(async (namespace) => ({
      name: namespace.name,
      topics: ((await api('GET', `/admin/namespaces/${segment(namespace.name)}/topics`))?.value ?? []).map(
        (topic) => ({ namespace: namespace.name, name: topic.name }),
      ),
    })),
  );
  return {
    topics: (topics?.value ?? []).map((topic) => ({ name: topic.name })),
    namespaces: namespaceTopics,
  };
}

const sameTopic = (a, b) =>
  a !== undefined && b !== undefined && a.name === b.name && a.namespace === b.namespace;

function TopicButton({ topic, selected, onSelect }) {
  return html`
    <li>
      <button
        type="button"
        class=${sameTopic(topic, selected) ? 'topic selected' : 'topic'}
        aria-current=${sameTopic(topic, selected) ? 'true' : undefined}
        data-testid="topic"
        onClick=${() => onSelect(topic)}
      >
        ${topic.name}
      </button>
    </li>
  `;
}

function Sidebar({ listing, selected, onSelect }) {
  const data = listing.data;
  return html`
    <nav class="sidebar" aria-label="Topics">
      <h2>Topics</h2>
      <${ErrorText} message=${listing.error} />
      ${!listing.loaded ? html`<p class="muted">Loading…</p>` : null}
      ${
        data !== undefined && data.topics.length === 0
          ? html`<p class="muted">No topics yet. Create one with <code>gridwire topic create</code>.</p>`
          : null
      }
      <ul>
        ${(data?.topics ?? []).map(
          (topic) =>
            html`<${TopicButton} key=${topic.name} topic=${topic} selected=${selected} onSelect=${onSelect} />`,
        )}
      </ul>
      ${(data?.namespaces ?? []).map(
        (namespace) => html`
          <h3 key=${namespace.name}>Namespace ${namespace.name}</h3>
          <ul>
            ${
              namespace.topics.length === 0
                ? html`<li class="muted">No topics</li>`
                : namespace.topics.map(
                    (topic) =>
                      html`<${TopicButton} key=${topic.name} topic=${topic} selected=${selected} onSelect=${onSelect} />`,
                  )
            }
          </ul>
        `,
      )}
    </nav>
  `;
}

/** A subscription document's destination: a topic subscription's, or a namespace push subscription's. */
const destinationOf = (subscription) =>
  subscription.properties?.destination ?? subscription.properties?.deliveryConfiguration?.push?.destination;

/** A subscription document's dead-letter destination, if it has one (either kind of subscription). */
const deadLetterDestinationOf = (subscription) =>
  subscription.properties?.deadLetterDestination ??
  subscription.properties?.deliveryConfiguration?.push?.deadLetterDestinationWithResourceIdentity
    ?.deadLetterDestination;

function StateBadge({ state }) {
  const name = state ?? 'Unknown';
  return html`<span class=${`badge state-${name.toLowerCase()}`} data-testid="health-state">${name}</span>`;
}

/** Each subscription of the topic with its health, every 5 s. */
async function loadSubscriptions(api, topic) {
  const base = topicPath(topic);
  const list = (await api('GET', `${base}/eventSubscriptions`))?.value ?? [];
  return Promise.all(
    list.map(async (subscription) => {
      try {
        const health = await api('GET', `${base}/eventSubscriptions/${segment(subscription.name)}/health`);
        return { subscription, health };
      } catch (error) {
        return { subscription, healthError: error.message };
      }
    }),
  );
}

/** The pause or resume button of a subscription; `onHealth` gets the health the API answers. */
function PauseButton({ api, topic, name, health, onHealth }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(undefined);
  const paused = health?.state === 'Paused';
  const act = async (event) => {
    event.stopPropagation();
    setBusy(true);
    setError(undefined);
    try {
      const path = `${topicPath(topic)}/eventSubscriptions/${segment(name)}/${paused ? 'resume' : 'pause'}`;
      onHealth(await api('POST', path));
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

function TopicView({ api, topic, selectedName, onSelectSubscription }) {
  const key = topicLabel(topic);
  const subscriptions = usePolling(() => loadSubscriptions(api, topic), REFRESH_EVERY_MS, key);
  // Health answered by pause/resume, shown until the next read.
  const [answered, setAnswered] = useState({});
  const rows = (subscriptions.data ?? []).map((row) => ({
    ...row,
    health: answered[row.subscription.name] ?? row.health,
  }));
  useEffect(() => setAnswered({}), [subscriptions.data]);
  useEffect(() => {
    const first = subscriptions.data?.[0]?.subscription.name;
    if (selectedName === undefined && first !== undefined) onSelectSubscription(first);
  }, [subscriptions.data, selectedName, onSelectSubscription]);
  const selected = rows.find((row) => row.subscription.name === selectedName);
  return html`
    <section class="topic-view">
      <header class="section-head">
        <h2>${topic.namespace === undefined ? 'Topic' : `Namespace ${topic.namespace}, topic`} <span class="name">${topic.name}</span></h2>
        <button type="button" class="secondary" onClick=${subscriptions.refresh}>Refresh</button>
      </header>
      <${ErrorText} message=${subscriptions.error} />
      ${
        subscriptions.data !== undefined && rows.length === 0
          ? html`<p class="muted">No event subscriptions on this topic.</p>`
          : null
      }
      ${
        rows.length === 0
          ? null
          : html`
            <table class="subscriptions" aria-label="Event subscriptions">
              <thead>
                <tr><th>Subscription</th><th>Endpoint</th><th>Health</th><th class="num">Failures</th><th>Held</th><th></th></tr>
              </thead>
              <tbody>
                ${rows.map(
                  ({ subscription, health, healthError }) => html`
                    <tr
                      key=${subscription.name}
                      class=${subscription.name === selectedName ? 'selected' : ''}
                      data-testid="subscription-row"
                      data-name=${subscription.name}
                      onClick=${() => onSelectSubscription(subscription.name)}
                    >
                      <td>
                        <button type="button" class="link" onClick=${() => onSelectSubscription(subscription.name)}>
                          ${subscription.name}
                        </button>
                      </td>
                      <td class="url">${destinationOf(subscription)?.properties?.endpointBaseUrl ?? '–'}</td>
                      <td>
                        ${healthError === undefined ? html`<${StateBadge} state=${health?.state} />` : html`<span class="error-inline">${healthError}</span>`}
                      </td>
                      <td class="num">${health?.consecutiveFailures ?? '–'}</td>
                      <td>${health?.held === null || health?.held === undefined ? '–' : `${health.held.events} (${health.held.state})`}</td>
                      <td class="actions">
                        <${PauseButton}
                          api=${api}
                          topic=${topic}
                          name=${subscription.name}
                          health=${health}
                          onHealth=${(document) => {
                            setAnswered((previous) => ({ ...previous, [subscription.name]: document }));
                            // Read again now: a read begun before the change must not show the old state.
                            subscriptions.refresh();
                          }}
                        />
                      </td>
                    </tr>
                  `,
                )}
              </tbody>
            </table>
          `
      }
      ${
        selected === undefined
          ? null
          : html`<${SubscriptionDetail}
              key=${`${key}/${selected.subscription.name}`}
              api=${api}
              topic=${topic}
              subscription=${selected.subscription}
              health=${selected.health}
            />`
      }
    </section>
  `;
}

function HealthSummary({ health }) {
  if (health === undefined) return null;
  const items = [
    ['State', html`<${StateBadge} state=${health.state} />`],
    ['Consecutive failures', health.consecutiveFailures],
    ['Last outcome', health.lastOutcome ?? '–'],
    ['Last success', time(health.lastSuccessAt)],
    ['Last failure', time(health.lastFailureAt)],
    ...(health.probationUntil === null ? [] : [['On probation until', time(health.probationUntil)]]),
    ...(health.pausedAt === null ? [] : [['Paused since', time(health.pausedAt)]]),
    [
      'Held events',
      health.held === null
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

function SubscriptionDetail({ api, topic, subscription, health }) {
  const [tab, setTab] = useState('log');
  const hasDeadLetters = deadLetterDestinationOf(subscription) !== undefined;
  const base = `${topicPath(topic)}/eventSubscriptions/${segment(subscription.name)}`;
  const tabs = [
    ['log', 'Message log'],
    ['dead', 'Dead letters'],
  ];
  return html`
    <section class="detail" aria-label=${`Subscription ${subscription.name}`}>
      <h3>Subscription <span class="name">${subscription.name}</span></h3>
      <${HealthSummary} health=${health} />
      <div class="tabs" role="tablist">
        ${tabs.map(
          ([id, label]) => html`
            <button
              key=${id}
              type="button"
              role="tab"
              aria-selected=${tab === id ? 'true' : 'false'}
              class=${tab === id ? 'tab selected' : 'tab'}
              onClick=${() => setTab(id)}
            >
              ${label}
            </button>
          `,
        )}
      </div>
      ${
        tab === 'log'
          ? html`<${MessageLog} api=${api} base=${base} />`
          : hasDeadLetters
            ? html`<${DeadLetters} api=${api} base=${base} />`
            : html`<p class="muted">This subscription has no dead-letter destination: events it gives up on are dropped.</p>`
      }
    </section>
  `;
}

const WINDOWS = [
  [15 * 60_000, 'Last 15 minutes'],
  [3_600_000, 'Last hour'],
  [24 * 3_600_000, 'Last 24 hours'],
];

/** The `since` of a window ending now. */
const windowStart = (windowMs) => new Date(Date.now() - windowMs).toISOString();

/**
 * The subscription's message log in the chosen window, newest first (the newest page every 5 s,
 * older pages on demand), each delivery with its attempts and a resend button.
 */
function MessageLog({ api, base }) {
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
                  return html`
                    <tr key=${delivery.deliveryId} data-testid="delivery-row" data-event-id=${delivery.eventId}>
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
                      <td class="actions"><${ResendButton} api=${api} base=${base} delivery=${delivery} /></td>
                    </tr>
                    ${expanded ? html`<tr key=${`${delivery.deliveryId}-attempts`} class="attempts-row"><td colspan="7"><${Attempts} attempts=${delivery.attempts} /></td></tr>` : null}
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

/** What a replay did, in a sentence. */
function replaySummary(report) {
  const parts = [`Queued ${plural(report.eventsQueued, 'event')} again`];
  if (report.blobsSkipped > 0) parts.push(`${plural(report.blobsSkipped, 'blob')} skipped (replayed before)`);
  if (report.replayingElsewhereKeys?.length > 0)
    parts.push(`${plural(report.replayingElsewhereKeys.length, 'blob')} being replayed by another call`);
  if (report.notFound?.length > 0) parts.push(`${plural(report.notFound.length, 'blob')} no longer there`);
  if (report.blobsFailed > 0) parts.push(`${plural(report.blobsFailed, 'blob')} failed`);
  return `${parts.join('; ')}.`;
}

/** The subscription's dead-letter blobs (newest page first, more on demand), with replay. */
function DeadLetters({ api, base }) {
  const list = usePolling(() => api('GET', `${base}/deadLetters`), REFRESH_EVERY_MS, base);
  const [more, setMore] = useState({ entries: [], nextPage: undefined, error: undefined });
  const [replay, setReplay] = useState({ busy: false });
  const firstPage = list.data?.value ?? [];
  const seen = new Set(firstPage.map((entry) => entry.key));
  const entries = [...firstPage, ...more.entries.filter((entry) => !seen.has(entry.key))];
  const nextPage = more.entries.length > 0 ? more.nextPage : list.data?.nextPage;
  const loadMore = async () => {
    try {
      const page = await api('GET', `${base}/deadLetters?page=${encodeURIComponent(nextPage)}`);
      setMore((previous) => ({
        entries: [...previous.entries, ...(page?.value ?? [])],
        nextPage: page?.nextPage,
      }));
    } catch (error) {
      setMore((previous) => ({ ...previous, error: error.message }));
    }
  };
  const run = async (body, what) => {
    setReplay({ busy: true });
    try {
      const report = await api('POST', `${base}/deadLetters/replay`, body);
      setReplay({ busy: false, result: `${what}: ${replaySummary(report)}` });
      list.refresh();
    } catch (error) {
      setReplay({ busy: false, error: error.message });
    }
  };
  return html`
    <div class="dead-letters" data-testid="dead-letters">
      <div class="toolbar">
        <button type="button" disabled=${replay.busy || entries.length === 0} onClick=${() => run({}, 'Replay of every blob')}>
          Replay all not yet replayed
        </button>
        <button type="button" class="secondary" onClick=${list.refresh}>Refresh</button>
        ${replay.busy ? html`<span class="muted">Replaying…</span>` : null}
        ${replay.result === undefined ? null : html`<span class="ok-inline" role="status">${replay.result}</span>`}
        ${replay.error === undefined ? null : html`<span class="error-inline" role="alert">${replay.error}</span>`}
      </div>
      <${ErrorText} message=${list.error ?? more.error} />
      ${list.loaded && list.error === undefined && entries.length === 0 ? html`<p class="muted">No dead letters.</p>` : null}
      ${
        entries.length === 0
          ? null
          : html`
            <table class="blobs" aria-label="Dead letters">
              <thead>
                <tr><th>Written</th><th>Blob</th><th class="num">Size</th><th>Replayed</th><th></th></tr>
              </thead>
              <tbody>
                ${entries.map(
                  (entry) => html`
                    <tr key=${entry.key} data-testid="dead-letter-row">
                      <td class="when">${time(entry.writtenAt)}</td>
                      <td class="mono key">${entry.key}</td>
                      <td class="num">${entry.bytes.toLocaleString()} B</td>
                      <td data-testid="replayed-at">${entry.replayedAt === undefined ? 'no' : time(entry.replayedAt)}</td>
                      <td class="actions">
                        <button
                          type="button"
                          class="secondary"
                          disabled=${replay.busy}
                          onClick=${() =>
                            run(
                              entry.replayedAt === undefined
                                ? { keys: [entry.key] }
                                : { keys: [entry.key], force: true },
                              'Replay',
                            )}
                        >
                          ${entry.replayedAt === undefined ? 'Replay' : 'Replay again'}
                        </button>
                      </td>
                    </tr>
                  `,
                )}
              </tbody>
            </table>
          `
      }
      ${nextPage === undefined ? null : html`<button type="button" class="secondary" onClick=${loadMore}>Older dead letters</button>`}
    </div>
  `;
}

function Console({ api }) {
  const listing = usePolling(() => loadTopics(api), REFRESH_EVERY_MS, 'topics');
  const [topic, setTopic] = useState(undefined);
  const [subscription, setSubscription] = useState(undefined);
  const selectTopic = (next) => {
    setTopic(next);
    setSubscription(undefined);
  };
  useEffect(() => {
    const first =
      listing.data?.topics[0] ?? listing.data?.namespaces.find((n) => n.topics.length > 0)?.topics[0];
    if (topic === undefined && first !== undefined) setTopic(first);
  }, [listing.data, topic]);
  return html`
    <div class="console">
      <header class="top">
        <h1>Gridwire console</h1>
        <span class="muted">local stack</span>
      </header>
      <${Counters} api=${api} />
      <div class="layout">
        <${Sidebar} listing=${listing} selected=${topic} onSelect=${selectTopic} />
        <main class="content">
          ${
            topic === undefined
              ? html`<p class="muted">Choose a topic.</p>`
              : html`<${TopicView}
                  key=${topicLabel(topic)}
                  api=${api}
                  topic=${topic}
                  selectedName=${subscription}
                  onSelectSubscription=${setSubscription}
                />`
          }
        </main>
      </div>
    </div>
  `;
}

function App() {
  const [token, setToken] = useState(takeToken);
  const [refused, setRefused] = useState(false);
  const forget = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    setRefused(true);
    setToken('');
  };
  const api = useRef({});
  if (api.current.token !== token) api.current = { token, call: apiClient(token, forget) };
  if (token === '')
    return html`<${NeedsToken}
      refused=${refused}
      onToken=${(value) => {
        sessionStorage.setItem(TOKEN_KEY, value);
        setRefused(false);
        setToken(value);
      }}
    />`;
  return html`<${Console} api=${api.current.call} />`;
}

render(html`<${App} />`, document.getElementById('app'));
