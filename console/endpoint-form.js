/**
 * Creating and editing an endpoint in the portal: its URL, event types and subject filter, and
 * whether it signs. An edit sends the whole subscription back with the form's changes (a PUT
 * replaces it), so signing, dead letters, retries, labels and the delivery order are kept; a new
 * endpoint that signs gets a secret made here and shown once.
 */
import { useEffect, useState } from 'preact/hooks';
import { destinationOf, filterOf, html, subscriptionPath } from './common.js';

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
 * form does not show (retries, dead letters, batching, headers, auth, signing, delivery order)
 * stays as it was.
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
    orderedDelivery: p.orderedDelivery,
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
export function EndpointForm({ api, topic, existing, taken = [], onSaved, onCancel }) {
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
