/**
 * `GET /openapi.json`: the API's OpenAPI document, with this stack's public URL as its server,
 * served by the management function beside the admin API's operations (`functions/management.ts`).
 * Made on the first request and kept.
 */
import { OPENAPI_PATH } from '../config/routes';
import { publicBaseUrl } from '../http/api-gateway';
import type { UrlDeps } from '../management/deps';
import type { Operations } from '../management/operation';
import { openApiDocument } from './document';

let made: { url: string; body: string } | undefined;

export const openApiOperations: Operations<UrlDeps> = {
  [`GET ${OPENAPI_PATH}`]: async (_event, deps) => {
    const url = publicBaseUrl(deps.publicUrl());
    if (made?.url !== url) made = { url, body: JSON.stringify(openApiDocument(url)) };
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
      body: made.body,
    };
  },
};
