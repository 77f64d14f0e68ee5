/**
 * `npm run openapi`: writes the API's OpenAPI document (`shared/openapi`) to `docs/openapi.json`,
 * with no server (a stack serves its own at `GET /openapi.json`, naming its URL).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../shared/openapi/document';

export const OPENAPI_FILE = join(__dirname, '..', 'docs', 'openapi.json');

/** The document as committed: two-space indentation and a final newline. */
export const openApiText = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

if (require.main === module) {
  writeFileSync(OPENAPI_FILE, openApiText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
