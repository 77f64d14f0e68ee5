/** The time a change is stamped with, and the wait before it is answered. */
import type { ClockDeps, PropagationDeps } from './deps';

/** Now, as changes are stamped. */
export const now = (deps: ClockDeps) => new Date(deps.clock.now());

/** Waits until publishers' cached copies show a change (answers are given only then). */
export const propagated = (deps: ClockDeps & PropagationDeps) => deps.clock.sleep(deps.propagationDelayMs);
