/**
 * `GET /openapi.json`: the API's OpenAPI document (`shared/openapi`), with this stack's public
 * URL as its server. Made on the first request and kept; loaded only then, so the management
 * function's cold start does not pay for it.
 */
import { OPENAPI_PATH } from '../config/routes';
import { publicBaseUrl } from '../http/api-gateway';
import type { UrlDeps } from './deps';
import type { Operations } from './operation';

let made: { url: string; body: string } | undefined;

export const openApiOperations: Operations<UrlDeps> = {
  [`GET ${OPENAPI_PATH}`]: async (_event, deps) => {
    const url = publicBaseUrl(deps.publicUrl());
    if (made?.url !== url) {
      const { openApiDocument } = await import('../openapi/document');
      made = { url, body: JSON.stringify(openApiDocument(url)) };
    }
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
      body: made.body,
    };
  },
};
