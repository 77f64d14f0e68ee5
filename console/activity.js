/**
 * What was sent to a subscription, in the console and the portal: three tabs, its message log,
 * its dead letters (or a note that it has no dead-letter destination) and its replays from the
 * topic's archive. `canResend` and `canReplay` leave those actions out where the session may not
 * take them (`canReplay`: replaying dead letters, and starting and cancelling replays); `noun`
 * names the subscription in the note ("subscription", "endpoint"); `archiveAdvice` says how a
 * topic without an archive gets one.
 */
import { useState } from 'preact/hooks';
import { deadLetterDestinationOf, html } from './common.js';
import { DeadLetters } from './dead-letters.js';
import { MessageLog } from './log.js';
import { Replays } from './replays.js';

const TABS = [
  ['log', 'Message log'],
  ['dead', 'Dead letters'],
  ['replays', 'Replays'],
];

export function Activity({
  api,
  base,
  subscription,
  noun = 'subscription',
  canResend = true,
  canReplay = true,
  archiveAdvice,
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
        : tab === 'replays'
          ? html`<${Replays} api=${api} base=${base} canStart=${canReplay} archiveAdvice=${archiveAdvice} />`
          : hasDeadLetters
            ? html`<${DeadLetters} api=${api} base=${base} canReplay=${canReplay} />`
            : html`<p class="muted">This ${noun} has no dead-letter destination: events it gives up on are dropped.</p>`
    }
  `;
}
