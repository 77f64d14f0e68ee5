/**
 * What listening for late answers costs (`bench/late-answer-cost.ts`), from the code's constants,
 * and docs/cost.md giving those figures, so a change of the window, the timeout, the function's
 * memory or timeout, the probation rules or the price shows there.
 *
 * 003 (classic page), "Retry schedule": "If the endpoint responds within 3 minutes, Event Grid
 * attempts to remove the event from the retry queue on a best effort basis, but duplicates may
 * still be received."
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hangingEndpoint, lateAnswerCostFigures, perListen } from '../../bench/late-answer-cost';
import { PRICES } from '../../bench/prices';
import { FUNCTIONS } from '../../shared/config/resources';

const COST_PAGE = readFileSync(join(resolve(__dirname, '../..'), 'docs/cost.md'), 'utf8').replace(
  /\s+/g,
  ' ',
);
const figures = lateAnswerCostFigures();
const dollars = (value: number, digits: number) => `$${value.toFixed(digits)}`;

describe('the cost of listening for late answers', () => {
  it('is at most the 150 s from the timeout to 3 minutes after the start, at the delivery function’s memory and Lambda’s price', () => {
    expect(perListen()).toEqual({
      seconds: 150,
      gbSeconds: 150 * (FUNCTIONS.delivery.memoryMb / 1024),
      usd: 150 * (FUNCTIONS.delivery.memoryMb / 1024) * PRICES.lambda.perGbSecond,
    });
    expect(figures.listenSecondsBefore).toBe(85);
    expect([figures.longestInvocationSeconds, figures.longestInvocationSecondsBefore]).toEqual([265, 115]);
  });

  it('is bounded per endpoint that never answers by its probations, and by its backlog once it is unhealthy', () => {
    const day = 24 * 60 * 60_000;
    // One request per probation (10 s after each 30 s timeout) until the 10th failure in a row.
    expect(hangingEndpoint({ backlog: true, horizonMs: day })).toEqual({
      listened: 10,
      intoBacklogAfterMs: 10 * 30_000 + 9 * 10_000,
    });
    // Without backlogs, the probes go on, further and further apart as the outage lasts.
    const without = hangingEndpoint({ backlog: false, horizonMs: day });
    expect(without.listened).toBeGreaterThan(10);
    expect(without.listened).toBeLessThan(60);
  });

  it('is what docs/cost.md says', () => {
    const said = [
      `at most ${figures.listenSeconds} s past the timeout`,
      `${figures.gbSecondsPerListen} GB-seconds at ${figures.memoryMb} MB`,
      `${dollars(figures.usdPerListen, 4)} per listened request`,
      `($${Math.round(figures.usdPerMillionListens).toLocaleString('en-US')} per million)`,
      `allowed at most ${figures.listenSecondsBefore} s (${figures.gbSecondsPerListenBefore} GB-seconds)`,
      `gets ${figures.hangingWithBacklog.listened} listened requests per worker`,
      `turns unhealthy (${figures.hangingWithBacklog.minutesToBacklog} minutes;`,
      `${dollars(figures.hangingWithBacklog.usd, 3)} per outage`,
      `${figures.hangingWithoutBacklogPerDay.listened} a day, ${dollars(figures.hangingWithoutBacklogPerDay.usd, 3)} a day`,
      `at most ${figures.longestInvocationSeconds} s after it began (${figures.longestInvocationSecondsBefore} s before)`,
    ];
    for (const text of said) expect([text, COST_PAGE.includes(text)]).toEqual([text, true]);
  });
});
