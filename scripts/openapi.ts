/**
 * `npm run openapi`: writes the API's OpenAPI document (`shared/openapi`) to `docs/openapi.json`,
 * with no server (a stack serves its own at `GET /openapi.json`, naming its URL), and the
 * TypeScript types of its paths, generated from it by openapi-typescript, to
 * `shared/client/api-types.ts` (what the typed client, `gridwire/client`, is checked against).
 * `--check` writes nothing: it fails naming each file that is not what it would write.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../shared/openapi/document';

export const OPENAPI_FILE = join(__dirname, '..', 'docs', 'openapi.json');
export const API_TYPES_FILE = join(__dirname, '..', 'shared', 'client', 'api-types.ts');

/** The document as committed: two-space indentation and a final newline. */
export const openApiText = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

const TYPES_HEADER = `/**
 * The HTTP API's paths, operations and schemas as TypeScript types, generated from
 * \`docs/openapi.json\` by openapi-typescript (\`npm run openapi\`): do not edit.
 */
`;

/** The types of the document's paths (openapi-typescript is an ES module: loaded when asked). */
export async function apiTypesText(document: string = openApiText()): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(document, { alphabetize: false, exportType: true });
  return `${TYPES_HEADER}${astToString(ast)}`;
}

async function main(check: boolean): Promise<void> {
  const document = openApiText();
  const files: Array<[string, string]> = [
    [OPENAPI_FILE, document],
    [API_TYPES_FILE, await apiTypesText(document)],
  ];
  if (!check) {
    for (const [file, text] of files) {
      writeFileSync(file, text);
      console.log(`wrote ${file}`);
    }
    return;
  }
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  const stale = files.filter(([file, text]) => read(file) !== text).map(([file]) => file);
  if (stale.length > 0) {
    console.error(`not up to date (run npm run openapi): ${stale.join(', ')}`);
    process.exitCode = 1;
  }
}

if (require.main === module) {
  main(process.argv.includes('--check')).catch((error: Error) => {
    console.error(error.stack ?? error.message);
    process.exitCode = 1;
  });
}
