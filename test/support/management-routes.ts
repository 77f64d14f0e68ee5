/**
 * The management API as route tests call it: dependencies over in-memory stores (a stack on AWS:
 * https endpoints only, no validation handshake, no address checks, no propagation wait), and a
 * call that answers the status and JSON body, a refusal as the error body the API would send.
 */
import type { HttpEvent } from '../../shared/http/api-gateway';
import { ApiError } from '../../shared/http/errors';
import { handleManagement, type ManagementDeps } from '../../shared/management/api';
import type { TableStores } from '../../shared/storage/store';

/** Route-test dependencies over `stores`; `overrides` set what a test needs besides. */
export const routeTestDeps = (stores: TableStores, overrides: Record<string, unknown> = {}): ManagementDeps =>
  ({
    ...stores,
    clock: { now: () => 0, sleep: async () => {} },
    newId: () => 'uid-1',
    allowHttpEndpoints: false,
    validateEndpoints: false,
    blockPrivateEndpoints: false,
    propagationDelayMs: 0,
    publicUrl: () => 'https://events.example.test',
    ...overrides,
  }) as unknown as ManagementDeps;

/** One call of a route: its status and JSON body; a refusal (`ApiError`) as its status and error body. */
export async function callRoute(
  deps: ManagementDeps,
  routeKey: string,
  pathParameters: Record<string, string>,
  body?: unknown,
) {
  try {
    const answer = await handleManagement(
      {
        routeKey,
        pathParameters,
        requestContext: {},
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      } as unknown as HttpEvent,
      deps,
    );
    return { status: answer.statusCode as number, body: JSON.parse(answer.body as string) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.statusCode, body: { error: { message: error.message } } };
  }
}
