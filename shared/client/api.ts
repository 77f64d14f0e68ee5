/**
 * A typed client of Gridwire's HTTP API: openapi-fetch over the types generated from the
 * OpenAPI document (`api-types.ts`), so each call's path, parameters, body and answer are
 * checked by the compiler against the document the API is tested to follow.
 *
 * ```ts
 * const api = createApiClient({ baseUrl: 'http://127.0.0.1:4000', token: adminToken });
 * const { data, error } = await api.GET('/admin/topics/{topic}', { params: { path: { topic: 'orders' } } });
 * ```
 *
 * On AWS the admin routes want SigV4: pass a `fetch` that signs each request.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types';

export type { components, operations, paths } from './api-types';

/** The client: `GET`, `PUT`, `POST`, `DELETE` over the API's paths. */
export type GridwireApiClient = Client<paths>;

export interface ApiClientOptions {
  /** The API's base URL (`http://127.0.0.1:4000`, `https://<api id>.execute-api.<region>.amazonaws.com`). */
  baseUrl: string;
  /** A bearer token: the local stack's admin token, or a console session's. */
  token?: string;
  /** Sends each request (default: the global `fetch`); e.g. one that signs with SigV4. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Writes a call's query parameters as the query string (default: openapi-fetch's, each value URI-encoded). */
  querySerializer?: (query: Record<string, unknown>) => string;
}

export function createApiClient(options: ApiClientOptions): GridwireApiClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: {
      ...options.headers,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.querySerializer === undefined ? {} : { querySerializer: options.querySerializer }),
  });
}
