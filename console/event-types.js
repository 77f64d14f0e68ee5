/**
 * A topic's event catalog, read only, in the console and the portal: the event types the topic
 * documents, each with its description and whether it has a schema and an example; a type opened
 * shows its JSON Schema (draft 2020-12) and its example payload, pretty-printed. Read when the
 * section is opened and on Refresh (`GET <topic>/eventTypes`, `GET .../eventTypes/{name}`). The
 * catalog is changed with the admin API, the CLI (`gridwire event-type`) or the CDK app.
 */
import { useEffect, useState } from 'preact/hooks';
import { ErrorText, html, segment, topicPath } from './common.js';

/** A JSON value as shown: indented two spaces. */
const pretty = (value) => JSON.stringify(value, null, 2);

/** One type opened: its schema and example, read when it is opened. */
function EventTypeDetail({ api, topic, name }) {
  const [state, setState] = useState({ loading: true });
  useEffect(() => {
    let stopped = false;
    api('GET', `${topicPath(topic)}/eventTypes/${segment(name)}`)
      .then((document) => !stopped && setState({ document }))
      .catch((error) => !stopped && setState({ error: error.message }));
    return () => {
      stopped = true;
    };
  }, [api, topic, name]);
  if (state.error !== undefined) return html`<${ErrorText} message=${state.error} />`;
  if (state.document === undefined) return html`<p class="muted small">Reading…</p>`;
  const properties = state.document.properties ?? {};
  return html`
    <div class="event-type-detail" data-testid="event-type-detail" data-name=${name}>
      <h4>Schema</h4>
      ${
        properties.schema === null || properties.schema === undefined
          ? html`<p class="muted small">None: events of this type are not checked.</p>`
          : html`<pre class="json" data-testid="event-type-schema">${pretty(properties.schema)}</pre>`
      }
      <h4>Example</h4>
      ${
        'example' in properties
          ? html`<pre class="json" data-testid="event-type-example">${pretty(properties.example)}</pre>`
          : html`<p class="muted small">None.</p>`
      }
    </div>
  `;
}

/**
 * The topic's event types, opened on demand; `validation` (the console's, from the topic's
 * document) says whether the topic checks its events.
 */
export function EventTypes({ api, topic, validation }) {
  const [open, setOpen] = useState(false);
  const [round, setRound] = useState(0);
  const [state, setState] = useState({});
  const [selected, setSelected] = useState(undefined);
  useEffect(() => {
    if (!open) return undefined;
    let stopped = false;
    api('GET', `${topicPath(topic)}/eventTypes`)
      .then((list) => !stopped && setState({ types: list?.value ?? [] }))
      .catch((error) => !stopped && setState({ error: error.message }));
    return () => {
      stopped = true;
    };
  }, [api, topic, open, round]);
  const types = state.types ?? [];
  return html`
    <details class="event-types" aria-label="Event types" onToggle=${(event) => setOpen(event.currentTarget.open)}>
      <summary>Event types</summary>
      <div class="toolbar flush">
        ${
          validation === undefined
            ? html`<span></span>`
            : html`<span class="muted small" data-testid="event-validation">
                ${
                  validation.validateEvents === true
                    ? `Published events are checked against their type's schema${validation.unknownEventTypes === 'reject' ? '; types not listed are refused' : ''}.`
                    : 'Published events are not checked against this catalog.'
                }
              </span>`
        }
        <button type="button" class="secondary" onClick=${() => setRound((value) => value + 1)}>Refresh</button>
      </div>
      <${ErrorText} message=${state.error} />
      ${
        state.types !== undefined && types.length === 0
          ? html`<p class="muted">No event types in this topic's catalog.</p>`
          : null
      }
      ${
        types.length === 0
          ? null
          : html`
            <table class="event-type-list" aria-label="Event type list">
              <thead><tr><th>Event type</th><th>Description</th><th>Schema</th><th>Example</th></tr></thead>
              <tbody>
                ${types.map(
                  (type) => html`
                    <tr
                      key=${type.name}
                      class=${type.name === selected ? 'selected' : ''}
                      data-testid="event-type-row"
                      data-name=${type.name}
                    >
                      <td>
                        <button type="button" class="link" onClick=${() => setSelected(type.name === selected ? undefined : type.name)}>
                          ${type.name}
                        </button>
                      </td>
                      <td>${type.properties?.description ?? ''}</td>
                      <td>${type.properties?.hasSchema ? 'yes' : 'no'}</td>
                      <td>${type.properties?.hasExample ? 'yes' : 'no'}</td>
                    </tr>
                  `,
                )}
              </tbody>
            </table>
          `
      }
      ${selected === undefined ? null : html`<${EventTypeDetail} key=${selected} api=${api} topic=${topic} name=${selected} />`}
    </details>
  `;
}
