/**
 * `npm run test:durations`: writes `test/support/test-durations.json`, how long each test file
 * took in the last `npm test` (the results `scripts/test.ts` keeps in `.test-output/jest`), for
 * the order jest starts files in when it has no record of its own (`test/support/sequencer.js`).
 * Measure on a machine like the one the suite must be fast on (2 cores), otherwise idle.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RESULTS_DIR } from './test-results';

interface JestResults {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const ROOT = join(__dirname, '..');
const FILE = join(ROOT, 'test', 'support', 'test-durations.json');

const seconds: Record<string, number> = {};
for (const name of readdirSync(RESULTS_DIR).filter((file) => file.endsWith('.json'))) {
  const results = JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')) as JestResults;
  for (const { name: path, startTime, endTime } of results.testResults) {
    seconds[relative(ROOT, path).split('\\').join('/')] = Math.round((endTime - startTime) / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(FILE, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${relative(ROOT, FILE)}: ${Object.keys(sorted).length} files`);
