/**
 * The Gridwire console and portal: one page, served at `/console` and `/portal` by the stack
 * itself (its management function, on AWS and in the local stack alike). What it shows is
 * decided by the session it is opened with (`GET /console/api/session`): an operator session
 * gets the console, a portal session the portal (`portal.js`).
 *
 * The console: the stack's topics (and namespaces' topics), each topic's event subscriptions
 * with their labels, endpoint health, pause and resume, a subscription's message log (every
 * attempt: outcome, HTTP status, duration, the start of the answer) with resend, its dead
 * letters with replay, its replays from the topic's archive, and in the local stack live
 * counters. Everything refreshes on its own, without a reload.
 *
 * Browser ES modules with no build step (this shell, `common.js`, `counters.js`, `activity.js`,
 * `log.js`, `dead-letters.js`, `replays.js`, `event-types.js`, `portal.js` and its parts): preact, htm
 * and openapi-fetch are served beside them (`/console/vendor/`, named by the import map in
 * index.html). Every call goes to the console's API (`/console/api/...`) through openapi-fetch
 * (`apiClient` in `common.js`) with the session token as a bearer token. The token
 * comes in the URL's fragment (`/console#token=...`, as `gridwire console` prints it; a browser
 * never sends the fragment to a server), is kept in this tab's sessionStorage and taken out of
 * the address bar.
 */
import { Fragment, render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Activity } from './activity.js';
import {
  API,
  addressHasToken,
  apiClient,
  DeliveryOrder,
  destinationOf,
  ErrorText,
  HealthSummary,
  html,
  Labels,
  loadSubscriptions,
  PauseButton,
  REFRESH_EVERY_MS,
  SessionEnd,
  SessionRefused,
  StateBadge,
  segment,
  subscriptionPath,
  TOKEN_KEY,
  takeToken,
  topicLabel,
  topicPath,
  usePolling,
} from './common.js';
import { Counters } from './counters.js';
import { EventTypes } from './event-types.js';
import { Portal } from './portal.js';

/** Whether the page was opened as the portal (`/portal`): its messages are worded for the portal's user. */
const openedAsPortal = () => window.location.pathname.replace(/\/+$/, '') === '/portal';

/** Shown without a token: how to open the page with one. */
function NeedsToken({ onToken }) {
  const [value, setValue] = useState('');
  const portal = openedAsPortal();
  const submit = (event) => {
    event.preventDefault();
    if (value.trim() !== '') onToken(value.trim());
  };
  return html`
    <main class="needs-token" data-testid="needs-token">
      <h1>${portal ? 'Gridwire portal' : 'Gridwire console'}</h1>
      <p class="lead">This page opens with a link that carries a session.</p>
      ${
        portal
          ? html`<p>Ask whoever gave you access for a portal link: it looks like <code>https://…/portal#token=…</code>.</p>`
          : null
      }
      <p>
        <code>gridwire console</code> prints a console link (add <code>--api "$API_URL"</code> for a deployed
        stack), <code>gridwire portal-link</code> a portal link. In the local stack, <code>npm start</code>
        (<code>gridwire start</code>) prints a console link such as
        <code>http://127.0.0.1:4000/console#token=…</code>. The token travels after the <code>#</code>, which the
        browser never sends to the server; the page keeps it for this tab only.
      </p>
      <form class="token-form" onSubmit=${submit}>
        <label for="token-input">Or paste the session token of a link:</label>
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

/** A topic as the listing keeps it: its name (and namespace) and the settings the topic view shows. */
const listedTopic = (document, namespace) => ({
  ...(namespace === undefined ? {} : { namespace }),
  name: document.name,
  deduplicationWindowInMinutes: document.properties?.deduplicationWindowInMinutes ?? 0,
  archive: document.properties?.archive ?? null,
  validateEvents: document.properties?.validateEvents ?? false,
  unknownEventTypes: document.properties?.unknownEventTypes ?? 'allow',
  sources: document.properties?.sources ?? [],
});

/** A topic's source in a few words: the queue it reads, or the bus and the rule's pattern. */
const sourceText = (source) =>
  source.kind === 'eventBridge'
    ? `EventBridge bus ${source.bus ?? ''}: ${JSON.stringify(source.eventPattern ?? {})}`
    : `SQS queue ${source.queueArn.split(':').at(-1)}${source.format === 'eventBridge' ? ' (EventBridge events)' : ''}`;

/** A de-duplication window in a few words: `off`, or `60 min`. */
const deduplicationWindowText = (minutes) => (minutes > 0 ? `${minutes} min` : 'off');

/** An archive in a few words: `off`, or how long it keeps events (`7 days`). */
const archiveText = (archive) => {
  const days = archive?.retentionInDays;
  if (days === undefined) return 'off';
  return days === 1 ? '1 day' : `${days} days`;
};

/** Topics and namespaces' topics, every 5 s. */
async function loadTopics(api) {
  const [topics, namespaces] = await Promise.all([
    api('GET', `${API}/topics`),
    api('GET', `${API}/namespaces`),
  ]);
  const namespaceTopics = await Promise.all(
    (namespaces?.value ?? []).map(async (namespace) => ({
      name: namespace.name,
      topics: ((await api('GET', `${API}/namespaces/${segment(namespace.name)}/topics`))?.value ?? []).map(
        (topic) => listedTopic(topic, namespace.name),
      ),
    })),
  );
  return {
    topics: (topics?.value ?? []).map((topic) => listedTopic(topic)),
    namespaces: namespaceTopics,
  };
}

/**
 * The topic the console opens on: the first listed (topics, then namespaces' topics) that has
 * event subscriptions, else the first of all; undefined when there is none.
 */
async function firstTopicWithSubscriptions(api, listing) {
  const all = [...listing.topics, ...listing.namespaces.flatMap((namespace) => namespace.topics)];
  for (const topic of all) {
    try {
      const list = await api('GET', `${topicPath(topic)}/eventSubscriptions`);
      if ((list?.value ?? []).length > 0) return topic;
    } catch {
      // A topic that cannot be read now is passed over.
    }
  }
  return all[0];
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

/** Where a subscription delivers, in a few words: a webhook's URL, or an AWS resource's ARN. */
const endpointText = (subscription) => {
  const properties = destinationOf(subscription)?.properties;
  return properties?.endpointBaseUrl ?? properties?.resourceArn ?? '–';
};

/** The topic's settings, as the latest listing read them. */
function TopicSettings({ topic }) {
  return html`
    <dl class="settings" aria-label="Topic settings">
      <div>
        <dt>De-duplication window</dt>
        <dd data-testid="topic-deduplication">${deduplicationWindowText(topic.deduplicationWindowInMinutes ?? 0)}</dd>
      </div>
      <div>
        <dt>Archive</dt>
        <dd data-testid="topic-archive">${archiveText(topic.archive)}</dd>
      </div>
      ${
        (topic.sources ?? []).length === 0
          ? null
          : html`<div>
              <dt>Sources</dt>
              <dd data-testid="topic-sources">
                ${topic.sources.map((source) => html`<div title=${source.queueArn}>${sourceText(source)}</div>`)}
              </dd>
            </div>`
      }
    </dl>
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
      <${TopicSettings} topic=${topic} />
      <${EventTypes} key=${key} api=${api} topic=${topic} validation=${topic} />
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
                <tr><th>Subscription</th><th>Endpoint</th><th>Labels</th><th>Health</th><th class="num">Failures</th><th>Held</th><th></th></tr>
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
                      <td class="url">${endpointText(subscription)}</td>
                      <td><${Labels} labels=${subscription.properties?.labels} /></td>
                      <td>
                        ${healthError === undefined ? html`<${StateBadge} state=${health?.state} />` : html`<span class="error-inline">${healthError}</span>`}
                      </td>
                      <td class="num">${health?.consecutiveFailures ?? '–'}</td>
                      <td>${health?.held === null || health?.held === undefined ? '–' : `${health.held.events} (${health.held.state})`}</td>
                      <td class="actions">
                        <${PauseButton}
                          api=${api}
                          base=${subscriptionPath(topic, subscription.name)}
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

function SubscriptionDetail({ api, topic, subscription, health }) {
  const base = subscriptionPath(topic, subscription.name);
  return html`
    <section class="detail" aria-label=${`Subscription ${subscription.name}`}>
      <h3>Subscription <span class="name">${subscription.name}</span></h3>
      <dl class="settings" aria-label="Subscription settings">
        <${DeliveryOrder} subscription=${subscription} />
      </dl>
      <${HealthSummary} health=${health} />
      <${Activity} api=${api} base=${base} subscription=${subscription} />
    </section>
  `;
}

function Console({ api, session }) {
  const listing = usePolling(() => loadTopics(api), REFRESH_EVERY_MS, 'topics');
  const [topic, setTopic] = useState(undefined);
  const [subscription, setSubscription] = useState(undefined);
  const choosing = useRef(false);
  const selectTopic = (next) => {
    setTopic(next);
    setSubscription(undefined);
  };
  // Opens on the first topic with subscriptions (once; a topic chosen meanwhile stays chosen).
  useEffect(() => {
    if (topic !== undefined || listing.data === undefined || choosing.current) return;
    if (listing.data.topics.length === 0 && listing.data.namespaces.every((n) => n.topics.length === 0))
      return;
    choosing.current = true;
    firstTopicWithSubscriptions(api, listing.data).then((first) => {
      if (first !== undefined) setTopic((previous) => previous ?? first);
    });
  }, [listing.data, topic, api]);
  // The chosen topic as the latest listing has it, so a changed setting shows without choosing it again.
  const shown =
    topic === undefined
      ? undefined
      : ([
          ...(listing.data?.topics ?? []),
          ...(listing.data?.namespaces ?? []).flatMap((namespace) => namespace.topics),
        ].find((listed) => sameTopic(listed, topic)) ?? topic);
  return html`
    <div class="console">
      <header class="top">
        <h1>Gridwire console</h1>
        <span class="muted">${window.location.host}</span>
        <${SessionEnd} session=${session} words="Session ends" />
      </header>
      <${Counters} api=${api} />
      <div class="layout">
        <${Sidebar} listing=${listing} selected=${topic} onSelect=${selectTopic} />
        <main class="content">
          ${
            topic === undefined
              ? html`<p class="muted">${listing.data === undefined ? 'Loading…' : 'Choose a topic.'}</p>`
              : html`<${TopicView}
                  key=${topicLabel(topic)}
                  api=${api}
                  topic=${shown}
                  selectedName=${subscription}
                  onSelectSubscription=${setSubscription}
                />`
          }
        </main>
      </div>
    </div>
  `;
}

/** The session's document (`GET /console/api/session`): its role, scope, end, and the portal's look. */
function Session({ api, token }) {
  const [state, setState] = useState({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    setState({ loading: true });
    api('GET', `${API}/session`).then(
      (document) => !stopped && setState({ document }),
      (error) => !stopped && setState({ error: error.message }),
    );
    return () => {
      stopped = true;
    };
  }, [token, round]);
  if (state.loading) return html`<p class="opening muted" data-testid="opening">Opening…</p>`;
  if (state.error !== undefined) {
    return html`
      <main class="needs-token" data-testid="session-error">
        <h1>The page could not open its session</h1>
        <${ErrorText} message=${state.error} />
        <p><button type="button" onClick=${() => setRound((value) => value + 1)}>Try again</button></p>
      </main>
    `;
  }
  const session = state.document;
  if (session.role === 'portal') return html`<${Portal} api=${api} session=${session} />`;
  return html`<${Console} api=${api} session=${session} />`;
}

function App() {
  const [token, setToken] = useState(takeToken);
  // Why the API refused the session (`expired` or `invalid`), once it has.
  const [refused, setRefused] = useState(undefined);
  const refuse = useCallback((reason) => {
    sessionStorage.removeItem(TOKEN_KEY);
    setRefused((previous) => previous ?? reason);
  }, []);
  const open = (value) => {
    sessionStorage.setItem(TOKEN_KEY, value);
    setRefused(undefined);
    setToken(value);
  };
  // A token put in the address of a tab already open (a new `#token=...`) is taken at once.
  useEffect(() => {
    const onHashChange = () => {
      if (!addressHasToken()) return;
      const taken = takeToken();
      if (taken === '') return;
      setRefused(undefined);
      setToken(taken);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  // The token in use: a late answer to calls made with an earlier one refuses nothing.
  const current = useRef(token);
  current.current = token;
  const api = useRef({});
  if (api.current.token !== token) {
    api.current = {
      token,
      call: apiClient(token, (reason) => {
        if (current.current === token) refuse(reason);
      }),
    };
  }
  if (refused !== undefined) return html`<${SessionRefused} reason=${refused} portal=${openedAsPortal()} />`;
  if (token === '') return html`<${NeedsToken} onToken=${open} />`;
  return html`<${Session} key=${token} api=${api.current.call} token=${token} />`;
}

render(html`<${App} />`, document.getElementById('app'));
