/**
 * The portal: what a portal session shows (`/portal#token=...`, from `gridwire portal-link`), for
 * the owner of one or more webhook endpoints rather than the stack's operator. Only the
 * subscriptions of the session's topic (or of its namespace's topics, with a topic picker) that
 * carry the session's labels, which the API alone decides; nothing else of the stack.
 *
 * For each endpoint: its health; create, edit and delete; pause and resume; the signing secret
 * rotated and shown once (never read back); a test event; the message log with resend; the dead
 * letters with replay. What the session's permissions leave out is not offered, and the page
 * says so once. The title, logo and accent colour come from the stack's `portalBranding`.
 */
import { useEffect, useState } from 'preact/hooks';
import { Activity } from './activity.js';
import {
  API,
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
  time,
  topicLabel,
  usePolling,
} from './common.js';

/** What each permission allows, as the page words what a session may not do. */
const PERMISSION_WORDS = [
  ['write', 'create, edit or delete endpoints'],
  ['pause', 'pause or resume endpoints'],
  ['rotateSecret', 'rotate signing secrets'],
  ['sendTest', 'send test events'],
  ['resend', 'resend events'],
  ['replay', 'replay dead letters'],
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

/** A secret shown once: copied now or never, as the API does not give it again. */
function SecretOnce({ secret, onDone }) {
  const [copied, setCopied] = useState(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret.secret);
      setCopied('Copied.');
    } catch {
      setCopied('Select the secret and copy it.');
    }
  };
  return html`
    <div class="secret-once" role="status" data-testid="new-secret">
      <strong>${secret.title}</strong>
      <p>Copy it now: it is shown this once. The portal cannot show it again, only rotate it.</p>
      <div class="row">
        <code class="secret" data-testid="secret-value">${secret.secret}</code>
        <button type="button" class="secondary" onClick=${copy}>Copy</button>
        ${copied === undefined ? null : html`<span class="muted">${copied}</span>`}
      </div>
      ${secret.note === undefined ? null : html`<p class="muted small">${secret.note}</p>`}
      <button type="button" onClick=${onDone}>Done, I have copied it</button>
    </div>
  `;
}

/** How the endpoint's requests are signed, with rotation (the new secret shown once). */
function Signing({ api, base, subscription, canRotate, canWrite, secret, onSecret, onSecretDone }) {
  const [state, setState] = useState({ busy: false });
  const signing = destinationOf(subscription)?.properties?.signing;
  const rotate = async () => {
    setState({ busy: true });
    try {
      const answer = await api('POST', `${base}/rotateSigningSecret`, {});
      const previous = (answer?.previousSecrets ?? []).map((entry) => time(entry.validUntil));
      const kept =
        previous.length === 0
          ? undefined
          : `Earlier secrets are still honoured until ${previous.join(', ')}.`;
      onSecret(
        answer?.secret === undefined
          ? { title: 'New public key (v1a): verify with it', secret: answer?.publicKey ?? '', note: kept }
          : { title: 'New signing secret', secret: answer.secret, note: kept },
      );
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  return html`
    <div class="signing" data-testid="signing">
      <h4>Signing</h4>
      ${
        signing === undefined || signing === null
          ? html`<p class="muted">Requests to this endpoint are not signed.${canWrite ? ' Edit the endpoint to sign them.' : ''}</p>`
          : html`<p>
              Requests are signed (${signing.scheme === 'v1a' ? 'v1a, Ed25519' : 'v1, HMAC-SHA256'}) with a secret in use since
              ${' '}${time(signing.secretCreatedTime)}${
                (signing.previousSecretsValidUntil ?? []).length > 0
                  ? `; earlier secrets honoured until ${signing.previousSecretsValidUntil.map(time).join(', ')}`
                  : ''
              }.
            </p>`
      }
      ${secret === undefined ? null : html`<${SecretOnce} secret=${secret} onDone=${onSecretDone} />`}
      ${
        canRotate && signing !== undefined && signing !== null
          ? html`<div class="toolbar">
              <button type="button" class="secondary" disabled=${state.busy} onClick=${rotate}>
                ${state.busy ? 'Rotating…' : 'Rotate secret'}
              </button>
              <span class="muted small">A new secret; the current one stays honoured for 24 hours.</span>
              ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
            </div>`
          : null
      }
    </div>
  `;
}

// ---- Create and edit -------------------------------------------------------------------------

/** The object without its undefined members. */
const defined = (object) =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));

/** A new signing secret made here (`whsec_` and 32 random bytes in base64), sent with the endpoint. */
function newSigningSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The filter of the form's fields over `kept` (the rest of a filter being edited); undefined when empty. */
function filterBody(kept, { types, begins, ends }) {
  const filter = defined({
    ...kept,
    includedEventTypes: types.length > 0 ? types : undefined,
    subjectBeginsWith: begins === '' ? undefined : begins,
    subjectEndsWith: ends === '' ? undefined : ends,
  });
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/** The body of a topic's subscription, or a namespace topic's push subscription. */
const bodyFor = (topic, destination, filter, rest = {}, push = {}) =>
  topic.namespace === undefined
    ? { properties: defined({ destination, filter, ...rest }) }
    : {
        properties: defined({
          deliveryConfiguration: { deliveryMode: 'Push', push: defined({ ...push, destination }) },
          filtersConfiguration: filter,
          ...rest,
        }),
      };

/** A new webhook endpoint's body. */
function newBody(topic, { url, secret, ...filterFields }) {
  const destination = {
    endpointType: 'WebHook',
    properties: defined({ endpointUrl: url, signing: secret === undefined ? undefined : { secret } }),
  };
  return bodyFor(topic, destination, filterBody({}, filterFields));
}

/**
 * An edited endpoint's body: its document sent back with the form's URL and filter, so what the
 * form does not show (retries, dead letters, batching, headers, auth, signing) stays as it was.
 * `full` is `getFullUrl`'s answer (the URLs the document shows cut at their path).
 */
function editedBody(topic, document, full, { url, secret, ...filterFields }) {
  const p = document.properties ?? {};
  const push = p.deliveryConfiguration?.push ?? {};
  const shown = (topic.namespace === undefined ? p.destination : push.destination)?.properties ?? {};
  const { endpointBaseUrl: _base, signing, auth, ...settings } = shown;
  const destination = {
    endpointType: 'WebHook',
    properties: defined({
      ...settings,
      auth:
        auth?.type === 'OAuth2ClientCredentials' && full.tokenUrl !== undefined
          ? { ...auth, tokenUrl: full.tokenUrl }
          : auth,
      endpointUrl: url,
      // A signing endpoint keeps its secrets: `generate` changes nothing when it has them.
      signing:
        signing !== undefined && signing !== null
          ? { generate: true }
          : secret === undefined
            ? undefined
            : { secret },
    }),
  };
  const {
    includedEventTypes: _types,
    subjectBeginsWith: _begins,
    subjectEndsWith: _ends,
    ...keptFilter
  } = filterOf(document);
  const filter = filterBody(keptFilter, filterFields);
  const common = {
    labels: p.labels,
    expirationTimeUtc: p.expirationTimeUtc,
    deliveryLog: p.deliveryLog,
    disableAfterFailingFor: p.disableAfterFailingFor,
  };
  if (topic.namespace !== undefined) {
    return bodyFor(topic, destination, filter, common, {
      maxDeliveryCount: push.maxDeliveryCount,
      eventTimeToLive: push.eventTimeToLive,
      retrySchedule: push.retrySchedule,
      deadLetterDestinationWithResourceIdentity: push.deadLetterDestinationWithResourceIdentity ?? undefined,
    });
  }
  return bodyFor(topic, destination, filter, {
    retryPolicy: p.retryPolicy,
    eventDeliverySchema: p.eventDeliverySchema,
    deadLetterDestination: p.deadLetterDestination,
    ...common,
  });
}

/** The event types of the form's field: names separated by commas or spaces. */
const eventTypesOf = (text) =>
  text
    .split(/[\s,]+/)
    .map((type) => type.trim())
    .filter((type) => type !== '');

/**
 * Creates an endpoint (`existing` undefined) or edits one: its URL, event types and subject
 * filter. A new endpoint, or one that does not sign yet when asked to, gets a signing secret made
 * here and shown once (`onSaved(document, secret)`).
 */
function EndpointForm({ api, topic, existing, taken = [], onSaved, onCancel }) {
  const editing = existing !== undefined;
  const filter = editing ? filterOf(existing) : {};
  const signs = editing && destinationOf(existing)?.properties?.signing != null;
  const [fields, setFields] = useState({
    name: '',
    url: '',
    types: (filter.includedEventTypes ?? []).join(', '),
    begins: filter.subjectBeginsWith ?? '',
    ends: filter.subjectEndsWith ?? '',
    sign: !editing,
  });
  // The whole URLs of the endpoint being edited (`getFullUrl`); the document shows them cut.
  const [full, setFull] = useState(editing ? undefined : {});
  const [state, setState] = useState({ busy: false });
  useEffect(() => {
    if (!editing) return;
    let stopped = false;
    api('POST', `${subscriptionPath(topic, existing.name)}/getFullUrl`).then(
      (answer) => {
        if (stopped) return;
        setFull(answer ?? {});
        setFields((previous) => ({ ...previous, url: answer?.endpointUrl ?? '' }));
      },
      (error) => !stopped && setState({ busy: false, error: error.message }),
    );
    return () => {
      stopped = true;
    };
  }, []);
  const field = (name) => (event) => {
    const { value, checked, type } = event.currentTarget;
    setFields((previous) => ({ ...previous, [name]: type === 'checkbox' ? checked : value }));
  };
  const submit = async (event) => {
    event.preventDefault();
    const name = editing ? existing.name : fields.name.trim();
    if (!editing && taken.includes(name)) {
      setState({ busy: false, error: `An endpoint named ${name} exists already: edit it instead.` });
      return;
    }
    const secret = fields.sign && !signs ? newSigningSecret() : undefined;
    const values = {
      url: fields.url.trim(),
      secret,
      types: eventTypesOf(fields.types),
      begins: fields.begins.trim(),
      ends: fields.ends.trim(),
    };
    setState({ busy: true });
    try {
      const body = editing ? editedBody(topic, existing, full, values) : newBody(topic, values);
      const document = await api('PUT', subscriptionPath(topic, name), body);
      setState({ busy: false });
      onSaved(document, secret);
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  const id = (name) => `endpoint-${editing ? 'edit' : 'new'}-${name}`;
  return html`
    <form class="endpoint-form" onSubmit=${submit} aria-label=${editing ? `Edit ${existing.name}` : 'New endpoint'}>
      <h4>${editing ? `Edit ${existing.name}` : 'New endpoint'}</h4>
      ${
        editing
          ? null
          : html`<div class="field">
              <label for=${id('name')}>Name</label>
              <input id=${id('name')} required value=${fields.name} onInput=${field('name')} placeholder="orders-webhook" />
              <span class="muted small">3 to 64 letters, digits and hyphens.</span>
            </div>`
      }
      <div class="field">
        <label for=${id('url')}>Endpoint URL</label>
        <input
          id=${id('url')}
          type="url"
          required
          disabled=${full === undefined}
          value=${fields.url}
          onInput=${field('url')}
          placeholder="https://example.com/webhooks"
        />
      </div>
      <div class="field">
        <label for=${id('types')}>Event types</label>
        <input id=${id('types')} value=${fields.types} onInput=${field('types')} placeholder="Order.Created, Order.Shipped" />
        <span class="muted small">Separated by commas; empty: every type.</span>
      </div>
      <div class="field-row">
        <div class="field">
          <label for=${id('begins')}>Subject begins with</label>
          <input id=${id('begins')} value=${fields.begins} onInput=${field('begins')} />
        </div>
        <div class="field">
          <label for=${id('ends')}>Subject ends with</label>
          <input id=${id('ends')} value=${fields.ends} onInput=${field('ends')} />
        </div>
      </div>
      ${
        signs
          ? html`<p class="muted small">Requests stay signed with the current secret; rotate it below.</p>`
          : html`<label class="check">
              <input type="checkbox" checked=${fields.sign} onChange=${field('sign')} />
              Sign requests with a new secret (shown once, when saved)
            </label>`
      }
      <div class="toolbar">
        <button type="submit" disabled=${state.busy || full === undefined}>
          ${state.busy ? 'Saving…' : editing ? 'Save' : 'Create'}
        </button>
        <button type="button" class="secondary" disabled=${state.busy} onClick=${onCancel}>Cancel</button>
        ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
      </div>
    </form>
  `;
}
