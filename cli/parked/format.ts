/** What `parked list` and `parked redrive` print for a reader. */
import { plural } from '../text';
import type { ParkedQueueReport } from './peek';
import type { RedriveResult } from './redrive';

/** The human-readable `parked list` output. */
export function formatList(reports: readonly ParkedQueueReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    const hidden = report.hidden > 0 ? ` (and ${report.hidden} hidden by a peek or move in progress)` : '';
    if (report.parked === 0 && report.messages.length === 0) {
      lines.push(`${report.queue}: nothing parked${hidden}`);
      continue;
    }
    lines.push(`${report.queue}: ${plural(report.parked, 'message')} parked${hidden}  ${report.redriveUrl}`);
    for (const message of report.messages) {
      const times = [
        message.sentAt === undefined ? undefined : `sent ${message.sentAt}`,
        message.firstReceivedAt === undefined ? undefined : `first received ${message.firstReceivedAt}`,
        message.receiveCount === undefined ? undefined : `received ${plural(message.receiveCount, 'time')}`,
        message.group === undefined ? undefined : `key group ${message.group}`,
      ].filter((part) => part !== undefined);
      lines.push(`  ${message.messageId}  ${times.join(', ')}`);
      const job = message.job;
      if (job === undefined) {
        lines.push(`    ${plural(message.bytes, 'byte')}, not a Gridwire job`);
      } else {
        const more = job.events > job.eventIds.length ? ', ...' : '';
        const what = job.kind === 'ended' ? 'ended deliveries of ' : '';
        lines.push(
          `    ${what}topic ${job.topic}, subscription ${job.subscription}: ${plural(job.events, 'event')} (${job.eventIds.join(', ')}${more})`,
        );
      }
    }
    const notShown = report.parked - report.messages.length;
    if (notShown > 0) {
      lines.push(
        report.fifo === true
          ? `  ... ${notShown} more not shown (--limit; a key's later messages show once the ones before them are moved back)`
          : `  ... ${notShown} more not shown (--limit)`,
      );
    }
  }
  return lines.join('\n');
}

/** The human-readable `parked redrive` output. */
export function formatRedrive(results: readonly RedriveResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    if (result.moved === 0 && result.failed.length === 0) {
      lines.push(`${result.queue}: nothing parked`);
      continue;
    }
    lines.push(`${result.queue}: moved ${plural(result.moved, 'message')} back to the ${result.queue} queue`);
    if (result.notDeleted > 0) {
      lines.push(
        `  ${plural(result.notDeleted, 'message')} could not be deleted from the redrive queue; a later redrive moves them again (delivered twice at most)`,
      );
    }
    for (const failure of result.failed) {
      lines.push(`  ${failure.messageId} stays parked: ${failure.reason}`);
    }
  }
  return lines.join('\n');
}
