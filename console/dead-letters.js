/**
 * A subscription's dead letters in the console and the portal: the newest page first, more on
 * demand, with replay (left out where the session may not replay).
 */
import { useState } from 'preact/hooks';
import { ActionStatus, ErrorText, html, plural, REFRESH_EVERY_MS, time, usePolling } from './common.js';

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

/** The subscription's dead-letter blobs (newest page first, more on demand), with replay when `canReplay`. */
export function DeadLetters({ api, base, canReplay = true }) {
  const list = usePolling(() => api('GET', `${base}/deadLetters`), REFRESH_EVERY_MS, base);
  const [more, setMore] = useState({ entries: [], nextPage: undefined, error: undefined });
  const [replay, setReplay] = useState({ busy: false });
  const firstPage = list.data?.value ?? [];
  const seen = new Set(firstPage.map((entry) => entry.key));
  const entries = [...firstPage, ...more.entries.filter((entry) => !seen.has(entry.key))];
  const nextPage = more.entries.length > 0 ? more.nextPage : list.data?.nextPage;
  // Something to replay: a blob listed that was not replayed yet, or pages not read yet.
  const awaitingReplay = nextPage !== undefined || entries.some((entry) => entry.replayedAt === undefined);
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
        ${
          canReplay
            ? html`<button
                type="button"
                disabled=${replay.busy || !awaitingReplay}
                title=${awaitingReplay ? undefined : 'Every dead letter listed was replayed; replay one again with its own button'}
                onClick=${() => run({}, 'Replay of every blob')}
              >
                Replay all not yet replayed
              </button>`
            : null
        }
        <button type="button" class="secondary" onClick=${list.refresh}>Refresh</button>
        <${ActionStatus} state=${replay} busyText="Replaying…" />
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
                        ${
                          canReplay
                            ? html`<button
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
                              </button>`
                            : null
                        }
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
