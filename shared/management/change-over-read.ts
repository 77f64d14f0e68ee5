/**
 * A management change made over a read of the stored item: its write is conditional on the item
 * still being as read, so two changes that race can't leave versions out of order. Gridwire also
 * writes these items itself, changing nothing a caller defines: the validation handshake records
 * its answer on a subscription, and every subscription change bumps its topic's
 * `subscriptionsVersion`. A change that lost only to such a write is decided and written again over
 * a fresh read, exactly as if the request had arrived just after it, so the caller never learns of
 * it. One that lost to a change of what callers define (or to a create or delete) is a 409, and the
 * caller reads and repeats.
 */
import { conflict } from '../http/errors';
import { ConcurrentChangeError } from '../storage/table';

/**
 * Writes tried in all: enough for the one or two writes a handshake makes; an item rewritten
 * faster than that is answered with a 409.
 */
export const MAX_CHANGE_TRIES = 3;

export interface ChangeOverRead<T, R> {
  /** The item as stored, read strongly consistently; `undefined` when there is none. */
  read: () => Promise<T | undefined>;
  /**
   * Decides the change over `existing` (checks included) and writes it on condition that the item
   * is still `existing`, throwing {@link ConcurrentChangeError} when it is not.
   */
  write: (existing: T | undefined) => Promise<R>;
  /** Whether `current` defines everything as `read` did: only Gridwire's own writes came between. */
  sameDefinition: (read: T, current: T) => boolean;
  /** The 409's message. */
  conflictMessage: string;
}

/** The change as written, and the item it replaced (the last one read). */
export interface ChangeMade<T, R> {
  written: R;
  replaced: T | undefined;
}

/** Reads the item and makes the change over it, again over a fresh read after losing to Gridwire's own writes. */
export async function changeOverRead<T, R>(change: ChangeOverRead<T, R>): Promise<ChangeMade<T, R>> {
  let existing = await change.read();
  for (let tries = 1; ; tries++) {
    try {
      return { written: await change.write(existing), replaced: existing };
    } catch (error) {
      if (!(error instanceof ConcurrentChangeError)) throw error;
      const current = await change.read();
      const onlyOwnWrites =
        existing !== undefined && current !== undefined && change.sameDefinition(existing, current);
      if (!onlyOwnWrites || tries >= MAX_CHANGE_TRIES) throw conflict(change.conflictMessage);
      existing = current;
    }
  }
}
