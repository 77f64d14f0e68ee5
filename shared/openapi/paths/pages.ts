/** The console's and the portal's pages, and this document. */

import { z } from 'zod';
import { portalBrandingSchema } from '../../config/portal';
import { CONSOLE_PATH, OPENAPI_PATH, PORTAL_PATH } from '../../config/routes';
import { anyJson, isoTime, type OperationSpec, type OperationSpecs } from '../spec';
import { scopeDocumentSchema } from './topics';

const CONSOLE = ['Console'];

export const PAGE_OPERATIONS: OperationSpecs = {
  [`GET ${CONSOLE_PATH}`]: {
    summary: "The console's page",
    tags: CONSOLE,
    answers: { 200: { description: 'The page.', contentType: 'text/html' } },
    errors: [404],
  },
  [`GET ${CONSOLE_PATH}/{file+}`]: {
    summary: "The console's scripts and stylesheet",
    tags: CONSOLE,
    answers: { 200: { description: 'The file.', contentType: 'application/octet-stream' } },
    errors: [404],
  },
  [`GET ${PORTAL_PATH}`]: {
    summary: "The portal's page",
    tags: CONSOLE,
    answers: { 200: { description: 'The page.', contentType: 'text/html' } },
    errors: [404],
  },
  [`GET ${OPENAPI_PATH}`]: {
    summary: 'This document',
    tags: ['API description'],
    answers: { 200: { description: 'The OpenAPI 3.1 document of this API.', schema: anyJson } },
  },
};

/**
 * `GET /console/api/session`: the console's and portal's own route beside the admin routes they
 * reach (served by the console's API route itself, so not in the route list): the session the
 * token is.
 */
export const CONSOLE_SESSION_OPERATION: OperationSpec = {
  summary: 'The session of the token',
  description: 'What the page shows and may do: the role, the scope and, for the portal, its branding.',
  tags: ['Console API'],
  answers: {
    200: {
      description: 'The session.',
      schema: z
        .object({
          id: z.string(),
          role: z.enum(['operator', 'portal']),
          scope: scopeDocumentSchema,
          expiresAt: isoTime,
          branding: portalBrandingSchema.optional(),
        })
        .meta({ id: 'ConsoleSession' }),
    },
  },
};
