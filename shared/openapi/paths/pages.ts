/** The console's and the portal's pages, and this document. */
import { CONSOLE_PATH, OPENAPI_PATH, PORTAL_PATH } from '../../config/routes';
import { anyJson, type OperationSpecs } from '../spec';

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
