/**
 * The Gridwire console: the local stack's topics (and namespaces' topics), each topic's event
 * subscriptions with their endpoint health, pause and resume, a subscription's message log (every
 * attempt: outcome, HTTP status, duration, the start of the answer) with resend, its dead letters
 * with replay, and live counters. Everything refreshes on its own, without a reload.
 *
 * Browser ES modules with no build step (this shell, `common.js`, `log.js`, `dead-letters.js`): preact and htm are served by the local stack
 * (`/console/vendor/`, named by the import map in index.html). Every call goes to the admin API
 * with the admin token as a bearer token. The token comes in the URL's fragment
 * (`/console#token=...`, as `gridwire start` prints it; a browser never sends the fragment to a
 * server), is kept in this tab's sessionStorage and taken out of the address bar.
 */
import { Fragment, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  apiClient,
  COUNTERS_EVERY_MS,
  clock,
  ErrorText,
  html,
  REFRESH_EVERY_MS,
  StateBadge,
  segment,
  TOKEN_KEY,
  takeToken,
  time,
  topicLabel,
  topicPath,
  usePolling,
} from './common.js';
import { DeadLetters } from './dead-letters.js';
import { MessageLog } from './log.js';

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
          <${Fragment} key=${namespace.name}>
          <h3>Namespace ${namespace.name}</h3>
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
          <//>
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
  // A token put in the address of a tab already open (a new `#token=...`) is taken at once.
  useEffect(() => {
    const onHashChange = () => {
      if (!new URLSearchParams(window.location.hash.slice(1)).has('token')) return;
      const taken = takeToken();
      if (taken === '') return;
      setRefused(false);
      setToken(taken);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
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
