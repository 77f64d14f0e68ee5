/**
 * A topic's de-duplication window at publish: which events of a request repeat an id the topic
 * accepted within the window (or one earlier in the request), claimed once per distinct id
 * (`storage/accepted-ids.ts`), and the claims given back when the request could not be queued.
 */
import { dependencyUnavailable } from '../http/errors';
import type { LoggerLike } from '../observability/logging';
import { type AcceptedIds, AcceptedIdsUnavailable, type AcceptingTopic } from '../storage/accepted-ids';
import type { AcceptedEvent } from './publish-request';

/** A topic's de-duplication: whose ids are checked, and for how long they are remembered (0: off). */
export interface Deduplication {
  topic: AcceptingTopic;
  windowMs: number;
}

/** What the check needs: the accepted ids, and where it says what went wrong. */
export interface DeduplicationDeps {
  acceptedIds: AcceptedIds;
  logger: LoggerLike;
}

/**
 * The positions of the request's events that repeat an id: one the topic accepted within its
 * window, or one earlier in the same request (the first is kept). Claims the others' ids for
 * this publish (`claimed`). Refuses the whole request (503) when the ids could not be checked.
 */
export async function acceptOnce(
  deps: DeduplicationDeps,
  dedup: Deduplication,
  events: readonly AcceptedEvent[],
  publishId: string,
  now: number,
): Promise<{ repeats: ReadonlySet<number>; claimed: string[] }> {
  const repeats = new Set<number>();
  if (dedup.windowMs <= 0) return { repeats, claimed: [] };
  const firstOf = new Map<string, number>();
  events.forEach(({ identity }, index) => {
    if (identity === undefined) return;
    if (firstOf.has(identity)) repeats.add(index);
    else firstOf.set(identity, index);
  });
  const ids = [...firstOf.keys()];
  let answers: boolean[];
  try {
    answers = await deps.acceptedIds.claim({
      topic: dedup.topic,
      ids,
      owner: publishId,
      now,
      windowMs: dedup.windowMs,
    });
  } catch (error) {
    const kept = error instanceof AcceptedIdsUnavailable ? error.kept : [];
    deps.logger.error('could not check published event ids for repeats', {
      topic: dedup.topic.id,
      error: (error as Error).message,
      ...(kept.length === 0 ? {} : { idsKeptAsRepeats: kept }),
    });
    throw dependencyUnavailable(
      "The events could not be checked for repeats: the topic's de-duplication store is unavailable or throttling. None of the request's events were queued; send the request again after the time in Retry-After.",
    );
  }
  const claimed: string[] = [];
  ids.forEach((id, position) => {
    if (answers[position] === true) repeats.add(firstOf.get(id) as number);
    else claimed.push(id);
  });
  return { repeats, claimed };
}

/** Gives back the ids a publish claimed and then could not queue (logged when some stay taken). */
export async function giveBack(
  deps: DeduplicationDeps,
  dedup: Deduplication,
  claimed: readonly string[],
  publishId: string,
  topicId: string,
) {
  if (claimed.length === 0) return;
  const kept = await deps.acceptedIds.release(dedup.topic, claimed, publishId);
  if (kept.length > 0) {
    deps.logger.error('could not give back the ids of events that were not queued', {
      topic: topicId,
      idsKeptAsRepeats: kept,
    });
  }
}
