/**
 * Queue contents saved by an earlier version of the local stack, which kept queues in memory and
 * wrote them to `queues.json` on a clean stop. The emulator now keeps queues on disk itself, so
 * the file is put back once, then removed.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { QUEUES, type QueueKey } from '../shared/config/resources';
import type { AwsClients } from '../shared/platform/aws';
import { messageGroupOf, readJobMessage } from '../shared/queue/job-codec';
import { sendJobs } from '../shared/queue/sqs-job-queue';
import type { LocalResources } from './provision';
import { LocalStackError } from './stack-error';

export const SAVED_QUEUES_FILE = 'queues.json';

interface SavedQueues {
  savedAt: string;
  queues: Record<string, string[]>;
}

/**
 * A saved message's group, read from the job it holds (a job of an earlier format, which the
 * delivery step upgrades, goes in the group of its subscription too). One this version cannot read
 * goes in all the same, in a group of its own, for the delivery step to refuse and park as it
 * would any such message.
 */
function savedGroupOf(body: string): string {
  try {
    return messageGroupOf(readJobMessage(body));
  } catch {
    return UNREADABLE_GROUP;
  }
}
const UNREADABLE_GROUP = '#unreadable';

/**
 * Puts messages saved by an earlier version back. Jobs carry their own due time, so they go in
 * without a delay and the delivery engine waits (or hops) as it would have. Returns how many.
 */
export async function restoreQueues(
  clients: AwsClients,
  resources: LocalResources,
  dataDir: string,
): Promise<number> {
  const file = join(dataDir, SAVED_QUEUES_FILE);
  let saved: SavedQueues;
  try {
    saved = JSON.parse(await readFile(file, 'utf8')) as SavedQueues;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new LocalStackError(
      `Could not read saved queue contents from ${file}: ${(error as Error).message}`,
    );
  }
  const urlByName = new Map<string, string>();
  for (const [key, queue] of Object.entries(QUEUES) as [QueueKey, (typeof QUEUES)[QueueKey]][]) {
    urlByName.set(queue.localName, resources.queueUrls[key]);
    urlByName.set(queue.redrive.localName, resources.redriveQueueUrls[key]);
  }
  let count = 0;
  for (const [name, bodies] of Object.entries(saved.queues)) {
    const url = urlByName.get(name);
    if (url === undefined) continue;
    try {
      await sendJobs(
        clients.sqs,
        url,
        bodies.map((body) => ({ body, delaySeconds: 0, groupId: savedGroupOf(body) })),
      );
    } catch (error) {
      throw new LocalStackError(
        `Could not put the saved messages of ${file} back into queue ${name} (${(error as Error).message}). The file is kept; fix or move it and start again.`,
      );
    }
    count += bodies.length;
  }
  // Only now is the file's content safe in the queues. Were this interrupted, the next start
  // restores it again: duplicates, never loss.
  await rm(file, { force: true });
  return count;
}
