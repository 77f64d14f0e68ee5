/**
 * The portal: what a portal session shows (`/portal#token=...`, from `gridwire portal-link`), for
 * the owner of one or more webhook endpoints rather than the stack's operator. Only the
 * subscriptions of the session's topic (or of its namespace's topics, with a topic picker) that
 * carry the session's labels, which the API alone decides; nothing else of the stack.
 *
 * For each endpoint: its health; create, edit and delete; pause and resume; the signing secret
 * rotated and shown once (never read back); a test event; the message log with resend; the dead
 * letters with replay; replays of past events from the topic's archive, started and cancelled.
 * What the session's permissions leave out is not offered, and the page says so once. The
 * title, logo and accent colour come from the stack's `portalBranding`.
 */
import { useEffect, useState } from 'preact/hooks';
import { Activity } from './activity.js';
import {
  API,
  DeliveryOrder,
  destinationOf,
  ErrorText,
  filterOf,
  HealthSummary,
  html,
  Labels,
  loadSubscriptions,
  PauseButton,
  REFRESH_EVERY_MS,
  SessionEnd,
  StateBadge,
  segment,
  subscriptionPath,
  topicLabel,
  usePolling,
} from './common.js';
import { EndpointForm } from './endpoint-form.js';
import { EventTypes } from './event-types.js';
import { Signing } from './signing.js';

/** What each permission allows, as the page words what a session may not do. */
const PERMISSION_WORDS = [
  ['write', 'create, edit or delete endpoints'],
  ['pause', 'pause or resume endpoints'],
  ['rotateSecret', 'rotate signing secrets'],
  ['sendTest', 'send test events'],
  ['resend', 'resend events'],
  ['replay', 'replay dead letters or past events'],
];

const DEFAULT_TITLE = 'Event endpoints';

/** `#rrggbb` mixed with white, `share` of the colour kept (a soft background of the accent). */
function tint(hex, share) {
  const channel = (offset) => Number.parseInt(hex.slice(offset, offset + 2), 16);
  const mixed = [1, 3, 5].map((offset) => Math.round(channel(offset) * share + 255 * (1 - share)));
  return `#${mixed.map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The stack's branding on the page: the document's title, and the accent colour as CSS custom
 * properties set through the DOM's style API (the page's policy allows no inline style).
 */
function useBranding(branding) {
  const title = branding.title ?? DEFAULT_TITLE;
  const accent = branding.accentColor;
  useEffect(() => {
    const root = document.documentElement;
    const previousTitle = document.title;
    document.title = title;
    if (typeof accent === 'string' && /^#[0-9a-f]{6}$/i.test(accent)) {
      root.style.setProperty('--accent', accent);
      root.style.setProperty('--accent-soft', tint(accent, 0.12));
    }
    return () => {
      document.title = previousTitle;
      root.style.removeProperty('--accent');
      root.style.removeProperty('--accent-soft');
    };
  }, [title, accent]);
}

/** The session's scope in words: its topic or namespace, and the labels its endpoints carry. */
function ScopeWords({ scope }) {
  return html`
    <span class="muted scope" data-testid="portal-scope">
      ${scope.topic === undefined ? `Namespace ${scope.namespace}` : `Topic ${scope.topic}`}
      ${scope.labels.length === 0 ? null : html` · ${scope.labels.join(', ')}`}
    </span>
  `;
}

export function Portal({ api, session }) {
  const { scope } = session;
  const branding = session.branding ?? {};
  useBranding(branding);
  const permissions = new Set(scope.permissions ?? []);
  const can = (permission) => permissions.has(permission);
  const cannot = PERMISSION_WORDS.filter(([permission]) => !can(permission)).map(([, words]) => words);
  return html`
    <div class="portal" data-testid="portal">
      <header class="top portal-top">
        ${
          typeof branding.logoUrl === 'string'
            ? html`<img class="logo" src=${branding.logoUrl} alt="" data-testid="portal-logo" />`
            : null
        }
        <h1 data-testid="portal-title">${branding.title ?? DEFAULT_TITLE}</h1>
        <${ScopeWords} scope=${scope} />
        <${SessionEnd} session=${session} words="Access until" />
      </header>
      <main class="content portal-content">
        ${
          cannot.length === 0
            ? null
            : html`<p class="note muted" data-testid="permissions-note">
                This link may not ${cannot.join(', ')}; ask for a link that may, if you need to.
              </p>`
        }
        ${
          scope.topic === undefined
            ? html`<${NamespaceTopics} api=${api} namespace=${scope.namespace} can=${can} />`
            : html`<${PortalTopic} api=${api} topic=${{ name: scope.topic }} can=${can} />`
        }
      </main>
    </div>
  `;
}

/** A namespace scope: its topics in a picker, the chosen one's endpoints below. */
function NamespaceTopics({ api, namespace, can }) {
  const topics = usePolling(
    () => api('GET', `${API}/namespaces/${segment(namespace)}/topics`),
    REFRESH_EVERY_MS,
    namespace,
  );
  const names = (topics.data?.value ?? []).map((topic) => topic.name);
  const [chosen, setChosen] = useState(undefined);
  const name = chosen !== undefined && names.includes(chosen) ? chosen : names[0];
  return html`
    <div class="toolbar">
      <label>
        Topic
        <select value=${name ?? ''} onChange=${(event) => setChosen(event.currentTarget.value)}>
          ${names.map((topic) => html`<option key=${topic} value=${topic}>${topic}</option>`)}
        </select>
      </label>
    </div>
    <${ErrorText} message=${topics.error} />
    ${topics.loaded && topics.error === undefined && names.length === 0 ? html`<p class="muted">This namespace has no topics yet.</p>` : null}
    ${
      name === undefined
        ? null
        : html`<${PortalTopic} key=${name} api=${api} topic=${{ namespace, name }} can=${can} />`
    }
  `;
}

/** A subscription's event types in words. */
const eventTypesText = (subscription) => {
  const types = filterOf(subscription).includedEventTypes;
  return Array.isArray(types) && types.length > 0 ? types.join(', ') : 'every type';
};

/** The topic's endpoints in the scope, with their health; the chosen one's detail; create. */
function PortalTopic({ api, topic, can }) {
  const key = topicLabel(topic);
  const subscriptions = usePolling(() => loadSubscriptions(api, topic), REFRESH_EVERY_MS, key);
  const [selectedName, setSelectedName] = useState(undefined);
  // Health answered by pause/resume, shown until the next read.
  const [answered, setAnswered] = useState({});
  // The form open: `{ mode: 'create' }` or `{ mode: 'edit', name }`.
  const [form, setForm] = useState(undefined);
  // A secret to show once: `{ name, title, secret, note }`, until it is dismissed.
  const [secret, setSecret] = useState(undefined);
  const [notice, setNotice] = useState(undefined);
  useEffect(() => setAnswered({}), [subscriptions.data]);
  const rows = (subscriptions.data ?? []).map((row) => ({
    ...row,
    health: answered[row.subscription.name] ?? row.health,
  }));
  useEffect(() => {
    const first = subscriptions.data?.[0]?.subscription.name;
    if (selectedName === undefined && first !== undefined) setSelectedName(first);
  }, [subscriptions.data, selectedName]);
  const selected = rows.find((row) => row.subscription.name === selectedName);
  const select = (name) => {
    setSelectedName(name);
    setNotice(undefined);
  };
  const saved = (document, created, newSecret) => {
    setForm(undefined);
    setSelectedName(document.name);
    setNotice(`${created ? 'Created' : 'Saved'} ${document.name}.`);
    if (newSecret !== undefined) {
      setSecret({
        name: document.name,
        title: 'Signing secret of this endpoint',
        secret: newSecret,
        note: 'Every request to the endpoint is signed with it (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).',
      });
    }
    subscriptions.refresh();
  };
  const deleted = (name) => {
    setSelectedName(undefined);
    setNotice(`Deleted ${name}.`);
    subscriptions.refresh();
  };
  return html`
    <section class="topic-view">
      <header class="section-head">
        <h2>Endpoints${topic.namespace === undefined ? null : html` of topic <span class="name">${topic.name}</span>`}</h2>
        <div class="toolbar flush">
          ${
            can('write')
              ? html`<button type="button" onClick=${() => setForm({ mode: 'create' })} disabled=${form?.mode === 'create'}>
                  New endpoint
                </button>`
              : null
          }
          <button type="button" class="secondary" onClick=${subscriptions.refresh}>Refresh</button>
        </div>
      </header>
      <${EventTypes} key=${key} api=${api} topic=${topic} />
      <${ErrorText} message=${subscriptions.error} />
      ${notice === undefined ? null : html`<p class="ok-inline notice" role="status" data-testid="portal-notice">${notice}</p>`}
      ${
        form?.mode === 'create'
          ? html`<${EndpointForm}
              api=${api}
              topic=${topic}
              taken=${rows.map((row) => row.subscription.name)}
              onSaved=${(document, newSecret) => saved(document, true, newSecret)}
              onCancel=${() => setForm(undefined)}
            />`
          : null
      }
      ${
        subscriptions.data !== undefined && rows.length === 0
          ? html`<p class="muted">No endpoints yet.${can('write') ? ' Add one with New endpoint.' : ''}</p>`
          : null
      }
      ${
        rows.length === 0
          ? null
          : html`
            <table class="subscriptions" aria-label="Endpoints">
              <thead>
                <tr><th>Name</th><th>URL</th><th>Event types</th><th>Health</th><th class="num">Failures</th></tr>
              </thead>
              <tbody>
                ${rows.map(
                  ({ subscription, health, healthError }) => html`
                    <tr
                      key=${subscription.name}
                      class=${subscription.name === selectedName ? 'selected' : ''}
                      data-testid="subscription-row"
                      data-name=${subscription.name}
                      onClick=${() => select(subscription.name)}
                    >
                      <td>
                        <button type="button" class="link" onClick=${() => select(subscription.name)}>${subscription.name}</button>
                      </td>
                      <td class="url">${destinationOf(subscription)?.properties?.endpointBaseUrl ?? '–'}</td>
                      <td>${eventTypesText(subscription)}</td>
                      <td>
                        ${healthError === undefined ? html`<${StateBadge} state=${health?.state} />` : html`<span class="error-inline">${healthError}</span>`}
                      </td>
                      <td class="num">${health?.consecutiveFailures ?? '–'}</td>
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
          : html`<${EndpointDetail}
              key=${`${key}/${selected.subscription.name}`}
              api=${api}
              topic=${topic}
              subscription=${selected.subscription}
              health=${selected.health}
              can=${can}
              editing=${form?.mode === 'edit' && form.name === selected.subscription.name}
              onEdit=${() => setForm({ mode: 'edit', name: selected.subscription.name })}
              onCancelEdit=${() => setForm(undefined)}
              onSaved=${(document, newSecret) => saved(document, false, newSecret)}
              onDeleted=${deleted}
              onHealth=${(document) => {
                setAnswered((previous) => ({ ...previous, [selected.subscription.name]: document }));
                subscriptions.refresh();
              }}
              secret=${secret?.name === selected.subscription.name ? secret : undefined}
              onSecret=${(shown) => setSecret({ name: selected.subscription.name, ...shown })}
              onSecretDone=${() => setSecret(undefined)}
            />`
      }
    </section>
  `;
}

/** Why a portal may not edit this endpoint, or undefined when it may. */
function editRefusal(subscription) {
  const destination = destinationOf(subscription);
  if (destination?.endpointType !== 'WebHook') {
    return 'This endpoint delivers to an AWS resource, not a URL: only the operator changes it.';
  }
  const secretHeaders = (destination.properties?.deliveryAttributeMappings ?? []).filter(
    (mapping) => mapping.properties?.isSecret === true,
  );
  if (secretHeaders.length > 0) {
    return `This endpoint sends secret headers (${secretHeaders.map((mapping) => mapping.name).join(', ')}) whose values are never shown: only the operator changes it.`;
  }
  return undefined;
}

function EndpointDetail(props) {
  const { api, topic, subscription, health, can, editing, secret } = props;
  const base = subscriptionPath(topic, subscription.name);
  const filter = filterOf(subscription);
  const refusal = editRefusal(subscription);
  return html`
    <section class="detail" aria-label=${`Endpoint ${subscription.name}`} data-testid="endpoint-detail">
      <h3>Endpoint <span class="name">${subscription.name}</span></h3>
      <dl class="health facts">
        <div><dt>URL</dt><dd class="mono">${destinationOf(subscription)?.properties?.endpointBaseUrl ?? '–'}</dd></div>
        <div><dt>Event types</dt><dd data-testid="event-types">${eventTypesText(subscription)}</dd></div>
        ${filter.subjectBeginsWith ? html`<div><dt>Subject begins with</dt><dd class="mono">${filter.subjectBeginsWith}</dd></div>` : null}
        ${filter.subjectEndsWith ? html`<div><dt>Subject ends with</dt><dd class="mono">${filter.subjectEndsWith}</dd></div>` : null}
        <div><dt>Labels</dt><dd><${Labels} labels=${subscription.properties?.labels} /></dd></div>
        <${DeliveryOrder} subscription=${subscription} />
      </dl>
      <div class="toolbar" data-testid="endpoint-actions">
        ${can('pause') ? html`<${PauseButton} api=${api} base=${base} health=${health} onHealth=${props.onHealth} />` : null}
        ${can('sendTest') ? html`<${SendTestButton} api=${api} base=${base} />` : null}
        ${
          can('write')
            ? html`<button
                type="button"
                class="secondary"
                disabled=${editing || refusal !== undefined}
                title=${refusal}
                onClick=${props.onEdit}
              >
                Edit
              </button>`
            : null
        }
        ${can('write') ? html`<${DeleteButton} api=${api} base=${base} name=${subscription.name} onDeleted=${props.onDeleted} />` : null}
      </div>
      ${can('write') && refusal !== undefined ? html`<p class="muted small">${refusal}</p>` : null}
      ${
        editing
          ? html`<${EndpointForm}
              api=${api}
              topic=${topic}
              existing=${subscription}
              onSaved=${props.onSaved}
              onCancel=${props.onCancelEdit}
            />`
          : null
      }
      <${Signing}
        api=${api}
        base=${base}
        subscription=${subscription}
        canRotate=${can('rotateSecret')}
        canWrite=${can('write') && refusal === undefined}
        secret=${secret}
        onSecret=${props.onSecret}
        onSecretDone=${props.onSecretDone}
      />
      <h4>Health</h4>
      <${HealthSummary} health=${health} />
      <${Activity}
        api=${api}
        base=${base}
        subscription=${subscription}
        noun="endpoint"
        canResend=${can('resend')}
        canReplay=${can('replay')}
        archiveAdvice="Past events can be replayed only from topics that keep them: ask the stack's operator if you need that."
      />
    </section>
  `;
}

/** Sends a test event (`Gridwire.TestEvent`) to the endpoint; shows what the API answered. */
function SendTestButton({ api, base }) {
  const [state, setState] = useState({ busy: false });
  const send = async () => {
    setState({ busy: true });
    try {
      const answer = await api('POST', `${base}/sendTestEvent`);
      setState({
        busy: false,
        result: `Test event ${answer?.eventId ?? ''} sent (${answer?.eventType ?? 'test'})`,
      });
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  return html`
    <button type="button" class="secondary" disabled=${state.busy} onClick=${send}>
      ${state.busy ? 'Sending…' : 'Send test event'}
    </button>
    ${state.result === undefined ? null : html`<span class="ok-inline" role="status" data-testid="test-event-result">${state.result}</span>`}
    ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
  `;
}

/** Deletes the endpoint, once confirmed. */
function DeleteButton({ api, base, name, onDeleted }) {
  const [state, setState] = useState({ confirming: false, busy: false });
  const remove = async () => {
    setState({ confirming: true, busy: true });
    try {
      await api('DELETE', base);
      onDeleted(name);
    } catch (error) {
      setState({ confirming: false, busy: false, error: error.message });
    }
  };
  if (!state.confirming) {
    return html`
      <button type="button" class="secondary danger" onClick=${() => setState({ confirming: true, busy: false })}>Delete</button>
      ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
    `;
  }
  return html`
    <span class="confirm" role="group" aria-label="Confirm deletion">
      Delete ${name}? No more events go to it.
      <button type="button" class="danger" disabled=${state.busy} onClick=${remove}>${state.busy ? 'Deleting…' : 'Yes, delete'}</button>
      <button type="button" class="secondary" disabled=${state.busy} onClick=${() => setState({ confirming: false, busy: false })}>
        Cancel
      </button>
    </span>
  `;
}
