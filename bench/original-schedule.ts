/**
 * The original service's retry schedule for an event whose every attempt fails, the yardstick the
 * held-for-a-day bench (`held.ts`) is read against, and durations written as people say them for
 * its report. Apart from the run itself because they are pure and tested on their own.
 */
import type { DeliveryProfile } from '../shared/delivery/rules/profiles';
import type { RetryLimits } from '../shared/domain/model';

const S = 1000;
const H = 3600 * S;

/**
 * When the original service attempts an event whose every attempt fails: the schedule's steps
 * (each raised to `floorMs`, without jitter) until `maxAttempts` attempts or until the next
 * attempt would come at or after the time to live. Times in ms after publish.
 */
export function originalAttemptTimes(
  profile: Pick<DeliveryProfile, 'retryDelaysMs' | 'repeatDelayMs'>,
  limits: Pick<RetryLimits, 'maxAttempts' | 'ttlMs'>,
  floorMs = 0,
): number[] {
  const times = [0];
  while (times.length < limits.maxAttempts) {
    const made = times.length;
    const step = profile.retryDelaysMs[made - 1] ?? profile.repeatDelayMs;
    const next = (times.at(-1) as number) + Math.max(step, floorMs);
    if (next >= limits.ttlMs) break;
    times.push(next);
  }
  return times;
}

/** A duration as people say it: `1 h 47 min`, `30 s`. */
export function humanDuration(ms: number): string {
  const h = Math.floor(ms / H);
  const min = Math.floor((ms % H) / (60 * S));
  const sec = Math.round((ms % (60 * S)) / S);
  const parts = [h > 0 ? `${h} h` : '', min > 0 ? `${min} min` : '', sec > 0 ? `${sec} s` : ''];
  const spoken = parts.filter((part) => part !== '').join(' ');
  return spoken === '' ? '0 s' : spoken;
}
