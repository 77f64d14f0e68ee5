/**
 * The API's description as a contract: every request the test stacks' routes take and every
 * answer they give is held to the OpenAPI document (`shared/openapi`), as it happens
 * (`recordExchange`, the stacks' `onExchange`). The route, the status and what did not match are
 * appended to a JSON-lines file of the worker's own under {@link API_CONTRACT_DIR}, which the
 * integration project empties before it runs; `test/iam/api-contract.test.ts` reads them after
 * the run, failing on any mismatch and on any route the suite never called that is not listed.
 *
 * What is checked:
 * - the answer's status is one the operation describes;
 * - a JSON answer's body matches the schema described for that status (an answer described with
 *   no body has none);
 * - the request body of a request answered 2xx matches the request body schema described for
 *   its content type (a request refused with a 4xx may be malformed on purpose; a CloudEvent in
 *   binary mode has its data as the body, described by the `ce-` headers).
 */
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import type { HttpExchange } from '../../local/gateway';
import { CONSOLE_API_PATH } from '../../shared/config/routes';
import { type CompiledRoute, compileRoute, matchRoute } from '../../shared/http/routes';
import { describedRoutes, openApiDocument, openApiPath } from '../../shared/openapi/document';
import { Recordings } from './recordings';

export const API_CONTRACT_DIR =
  process.env.TEST_API_CONTRACT_DIR ?? join(__dirname, '..', '..', '.test-output', 'api-contract');

/** One exchange as recorded: the operation (`PUT /admin/topics/{topic}`), the status, what failed. */
export interface ContractRecord {
  operation: string;
  status: number;
  /** What did not match the description; absent: it matched. */
  problem?: string;
}

const DOCUMENT_ID = 'gridwire-openapi';

interface Contract {
  document: { paths: Record<string, Record<string, OperationObject>> };
  ajv: Ajv2020;
  /** Operation keys (`GET /openapi/path`) by the gateway's route key. */
  operationOf: Map<string, { path: string; method: string }>;
  /** The console API's routes, one per admin route a session may call. */
  consoleRoutes: CompiledRoute[];
}

interface OperationObject {
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, ResponseObject>;
}

interface ResponseObject {
  content?: Record<string, unknown>;
}

/** The member of `document` at `pointer` (JSON pointer tokens, unescaped). */
const resolve = (document: unknown, pointer: string[]): unknown =>
  pointer.reduce<unknown>(
    (at, part) => (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
    document,
  );

let contract: Contract | undefined;

function loadContract(): Contract {
  if (contract !== undefined) return contract;
  const document = openApiDocument() as unknown as Contract['document'];
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const operationOf = new Map<string, { path: string; method: string }>();
  const consoleRoutes: CompiledRoute[] = [];
  for (const route of describedRoutes()) {
    const path = openApiPath(route.path);
    operationOf.set(`${route.method} ${route.path}`, { path, method: route.method.toLowerCase() });
    if (route.adminRouteKey !== undefined || route.consoleOwn === true) {
      consoleRoutes.push(
        compileRoute({ method: route.method, path: route.path, function: 'management', auth: 'session' }),
      );
    }
  }
  contract = { document, ajv, operationOf, consoleRoutes };
  return contract;
}

/** A JSON pointer's token. */
const token = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

const validators = new Map<string, ValidateFunction>();

function validatorAt(pointer: string[]): ValidateFunction {
  const ref = `${DOCUMENT_ID}#/${pointer.map(token).join('/')}`;
  let validate = validators.get(ref);
  if (validate === undefined) {
    const found = loadContract().ajv.getSchema(ref);
    if (found === undefined) throw new Error(`no schema at ${ref}`);
    validate = found;
    validators.set(ref, validate);
  }
  return validate;
}

const mediaType = (value: string | undefined) => value?.split(';')[0]?.trim().toLowerCase();
const isJson = (type: string | undefined) =>
  type !== undefined && /^application\/([\w.+-]*\+)?json$/.test(type);

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .slice(0, 3)
    .map(
      (error) =>
        `${error.instancePath || '(root)'} ${error.message ?? ''}${
          error.params && Object.keys(error.params).length > 0 ? ` ${JSON.stringify(error.params)}` : ''
        }`,
    )
    .join('; ');

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...` : text);

/** What about `exchange` does not match the description; undefined when it matches. */
export function contractProblem(exchange: HttpExchange): {
  operation: string;
  status: number;
  problem?: string;
} {
  const { operationOf, document } = loadContract();
  // The console's API is one gateway route; it is described route by route, by the admin path.
  const routeKey =
    exchange.routeKey === `ANY ${CONSOLE_API_PATH}/{proxy+}` ? consoleRouteKey(exchange) : exchange.routeKey;
  const status = exchange.result.statusCode ?? 200;
  const found = routeKey === undefined ? undefined : operationOf.get(routeKey);
  if (found === undefined) {
    // A console API path that is no admin route: the session is checked first (401, 403), then
    // the function finds no operation (404). Nothing else may answer it.
    return {
      operation: exchange.routeKey,
      status,
      ...([401, 403, 404].includes(status)
        ? {}
        : { problem: `no operation describes ${exchange.method} ${exchange.path}` }),
    };
  }
  const operation = `${found.method.toUpperCase()} ${found.path}`;
  const described = document.paths[found.path]?.[found.method] as OperationObject;
  const listed = described.responses[String(status)] as ({ $ref?: string } & ResponseObject) | undefined;
  // An answer shared by many operations is a component: `#/components/responses/Error404`.
  const answerPointer =
    listed?.$ref === undefined
      ? ['paths', found.path, found.method, 'responses', String(status)]
      : listed.$ref.slice(2).split('/');
  const answer = listed?.$ref === undefined ? listed : (resolve(document, answerPointer) as ResponseObject);
  if (answer === undefined) {
    return {
      operation,
      status,
      problem: `status ${status} is not described (described: ${Object.keys(described.responses).join(', ')}); body ${excerpt(exchange.result.body ?? '')}`,
    };
  }
  const body = exchange.result.body ?? '';
  const headers = Object.fromEntries(
    Object.entries(exchange.result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  const type = mediaType(headers['content-type']);
  if (answer.content === undefined) {
    if (body !== '')
      return { operation, status, problem: `the answer has a body, none is described: ${excerpt(body)}` };
  } else if (isJson(type) && !exchange.result.isBase64Encoded) {
    const contentType = Object.keys(answer.content).find((described) => isJson(described));
    if (contentType === undefined) {
      return {
        operation,
        status,
        problem: `a JSON answer, described as ${Object.keys(answer.content).join(', ')}`,
      };
    }
    const validate = validatorAt([...answerPointer, 'content', contentType, 'schema']);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return { operation, status, problem: `the answer is not JSON: ${excerpt(body)}` };
    }
    if (!validate(value)) {
      return {
        operation,
        status,
        problem: `answer: ${describeErrors(validate.errors)}; body ${excerpt(body)}`,
      };
    }
  }
  // A CloudEvent in binary mode: its attributes are headers, the body is its data, as it is.
  if (status >= 200 && status < 300 && exchange.requestBody.length > 0 && !exchange.cloudEventHeaders) {
    const requestType = mediaType(exchange.requestContentType) ?? 'application/json';
    const content = described.requestBody?.content;
    if (content === undefined) {
      // A body the route does not read (an empty object sent with an action) is not held to anything.
      return { operation, status };
    }
    if (isJson(requestType) && requestType in content) {
      const text = exchange.requestBody.toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return {
          operation,
          status,
          problem: `a request answered ${status} whose body is not JSON: ${excerpt(text)}`,
        };
      }
      const validate = validatorAt([
        'paths',
        found.path,
        found.method,
        'requestBody',
        'content',
        requestType,
        'schema',
      ]);
      if (!validate(value)) {
        return {
          operation,
          status,
          problem: `request: ${describeErrors(validate.errors)}; body ${excerpt(text)}`,
        };
      }
    } else if (isJson(requestType) && !Object.keys(content).some(isJson)) {
      return {
        operation,
        status,
        problem: `a ${requestType} request answered ${status}; described: ${Object.keys(content).join(', ')}`,
      };
    }
  }
  return { operation, status };
}

/** The console API route a request to `ANY /console/api/{proxy+}` stands for, matched as the gateway matches. */
function consoleRouteKey(exchange: HttpExchange): string | undefined {
  return matchRoute(loadContract().consoleRoutes, exchange.method, exchange.path)?.route.routeKey;
}

const recordings = new Recordings<ContractRecord>(API_CONTRACT_DIR);

/** Holds `exchange` to the description and records the outcome (each distinct one once). */
export function recordExchange(exchange: HttpExchange): void {
  let record: ContractRecord;
  try {
    record = contractProblem(exchange);
  } catch (error) {
    record = {
      operation: exchange.routeKey,
      status: exchange.result.statusCode ?? 200,
      problem: `the check failed: ${(error as Error).message}`,
    };
  }
  recordings.add(record);
}

/** Every distinct record of the run. */
export const readContractRecords = (): ContractRecord[] => recordings.read();

export const clearContractRecords = (): void => recordings.clear();
