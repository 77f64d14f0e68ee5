/**
 * What was sent to a subscription, in the console and the portal: two tabs, its message log and
 * its dead letters (or a note that it has no dead-letter destination). `canResend` and
 * `canReplay` leave those actions out where the session may not take them; `noun` names the
 * subscription in the note ("subscription", "endpoint").
 */
import { useState } from 'preact/hooks';
import { deadLetterDestinationOf, html } from './common.js';
import { DeadLetters } from './dead-letters.js';
import { MessageLog } from './log.js';

const TABS = [
  ['log', 'Message log'],
  ['dead', 'Dead letters'],
];

export function Activity({
  api,
  base,
  subscription,
  noun = 'subscription',
  canResend = true,
  canReplay = true,
}) {
  const [tab, setTab] = useState('log');
  const hasDeadLetters = deadLetterDestinationOf(subscription) !== undefined;
  return html`
    <div class="tabs" role="tablist">
      ${TABS.map(
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
        ? html`<${MessageLog} api=${api} base=${base} canResend=${canResend} />`
        : hasDeadLetters
          ? html`<${DeadLetters} api=${api} base=${base} canReplay=${canReplay} />`
          : html`<p class="muted">This ${noun} has no dead-letter destination: events it gives up on are dropped.</p>`
    }
  `;
}
