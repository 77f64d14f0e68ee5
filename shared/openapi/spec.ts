/**
 * How one HTTP route is described in the OpenAPI document (`document.ts`): what it takes (query,
 * headers, body) and what it answers, each a zod schema. Request bodies are the very schemas the
 * routes validate with; answers are described here beside the code that builds them, and the
 * integration suite holds every answer it gets to them (`test/support/api-contract.ts`).
 */
import { z } from 'zod';

/** A JSON answer, or one of another content type (the console's page and files). */
export interface AnswerSpec {
  description: string;
  /** The body's schema; absent: no body (a 204, or a body nobody should read). */
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
  /** Headers the answer carries, by name: their description. */
  headers?: Readonly<Record<string, string>>;
}

/** The errors an operation may answer, by status (each with the error body). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503;

export interface OperationSpec {
  summary: string;
  description?: string;
  /** The document's tags (one per part of the API: `Publish`, `Topics`...). */
  tags: readonly string[];
  query?: z.ZodObject;
  headers?: z.ZodObject;
  /** The JSON body's schema (as validated by the route), or bodies by content type. */
  body?: z.ZodType | { readonly content: Readonly<Record<string, z.ZodType>>; readonly required?: boolean };
  /** Successful answers by status. */
  answers: Readonly<Record<number, AnswerSpec>>;
  /** Error answers beyond those every route of its kind may give (see `document.ts`). */
  errors?: readonly ErrorStatus[];
}

/** Operations by route key (`PUT /admin/topics/{topic}`), as in `shared/config/routes.ts`. */
export type OperationSpecs = Readonly<Record<string, OperationSpec>>;

/** An error's detail: a code and the message. */
export const errorDetailSchema = z.object({ code: z.string(), message: z.string() });

/** Every error Gridwire's functions answer (and the local gateway's 401). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'The status as a word: `BadRequest`, `NotFound`...' }),
      message: z.string().meta({ description: 'What went wrong, naming the field and the limit.' }),
      details: z.array(errorDetailSchema).optional(),
    }),
  })
  .meta({ id: 'Error' });

/** What API Gateway itself answers for a request it refuses before any function runs. */
export const gatewayErrorSchema = z.object({ message: z.string() }).meta({ id: 'GatewayError' });

/** A JSON object whose members are not described further (a published event's `data`). */
export const anyJson = z.unknown();

/** ISO 8601 date and time, UTC. */
export const isoTime = z.string().meta({ format: 'date-time' });

/** `{ "value": [...] }`, the shape of every list the admin API answers. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ value: z.array(item) });

/** A JSON body the route takes but does not require (absent: as `{}`). */
export const optionalJson = (schema: z.ZodType) => ({
  content: { 'application/json': schema },
  required: false,
});

/** An answer of `schema` with status 200. */
export const ok = (description: string, schema?: z.ZodType): Readonly<Record<number, AnswerSpec>> => ({
  200: { description, ...(schema === undefined ? {} : { schema }) },
});

/** A create-or-replace's answers: 201 with `schema` when it made the resource, 200 when it changed it. */
export const createdOrUpdated = (
  resource: string,
  schema: z.ZodType,
): Readonly<Record<number, AnswerSpec>> => ({
  200: { description: `The ${resource}, updated.`, schema },
  201: { description: `The ${resource}, created.`, schema },
});

/** A delete's answers: 200 when it deleted the resource, 204 when there was none. */
export const deletedOrNone = (resource: string): Readonly<Record<number, AnswerSpec>> => ({
  200: { description: 'Deleted.' },
  204: { description: `There was no such ${resource}.` },
});
