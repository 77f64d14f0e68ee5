/**
 * The order jest starts test files in: the longest first, so a slow end-to-end file does not start
 * last and keep one worker busy after the others are done. A file's duration is jest's own record
 * of its last run on this machine (jest's cache) when there is one; otherwise, in a fresh clone,
 * the one in `test-durations.json` (seconds, measured on a 2-core machine:
 * `npm run test:durations` writes it from the last `npm test`). A file in neither starts first, as
 * jest's own order has it. Jest's rule that a file which failed last time starts first is kept.
 */
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..', '..');
/** Seconds per file, by its path from the repository root. */
const MEASURED = JSON.parse(readFileSync(join(__dirname, 'test-durations.json'), 'utf8'));

class LongestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const seconds = MEASURED[relative(ROOT, test.path).split('\\').join('/')];
    return seconds === undefined ? undefined : seconds * 1000;
  }
}

module.exports = LongestFirst;
