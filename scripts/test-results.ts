/** Where `npm test` (`scripts/test.ts`) keeps each jest step's results (`--json`), for `npm run test:durations`. */
import { join } from 'node:path';

export const RESULTS_DIR = join(__dirname, '..', '.test-output', 'jest');
