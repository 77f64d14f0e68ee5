/**
 * The local stand-in for the publish function's Lambda function URL: every request, whatever
 * its path, is handed to the publish handler as a function URL shapes it (payload format 2.0,
 * `routeKey` `$default`, the path as sent in `rawPath`, no `pathParameters`), and the handler
 * routes it itself, as on AWS. No authorizer (auth type NONE): the handler checks keys and SAS
 * tokens, and IAM publishing is not served here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FUNCTIONS, LOCAL_ENV } from '../shared/config/resources';
import { FUNCTION_URL_ROUTE_KEY } from '../shared/http/routes';
import type { LoggerLike } from '../shared/observability/logging';
import type { Admission } from './admission';
import {
  type HttpHandler,
  type Listener,
  listen,
  readBody,
  refuseUnreadBody,
  send,
  sendResult,
  toHttpEvent,
} from './gateway';
import { type InvocationStats, lambdaContext } from './lambda-context';
import { LocalStackError } from './stack-error';

/** A function URL takes request payloads up to 6 MB (Lambda's synchronous invocation limit). */
export const MAX_FUNCTION_URL_BODY_BYTES = 6 * 1024 * 1024;

export interface FunctionUrlOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The publish handler. */
  handler: HttpHandler;
  logger: LoggerLike;
  onInvocation?: (stats: InvocationStats) => void;
  /**
   * The local stack's overload gate, shared with the HTTP API: on AWS a function URL has no
   * throttle, and a flood is refused by Lambda (429) once the publish function's reserved
   * concurrency is taken; on one machine the same backlog gate stands in for both.
   */
  admission?: Admission;
}

/** Starts the function URL; a port in use is a `LocalStackError` saying how to choose another. */
export async function startFunctionUrl(options: FunctionUrlOptions): Promise<Listener> {
  const handle = async (req: IncomingMessage, res: ServerResponse, ownAddress: string) => {
    // The path and query only: the `Host` header is the client's to choose and is never used.
    const url = new URL(req.url ?? '/', 'http://localhost');
    const refusal = options.admission?.admit();
    if (refusal !== undefined) {
      req.resume();
      send(res, 429, JSON.stringify({ Message: 'Rate Exceeded.' }), {
        'retry-after': String(refusal.retryAfterSeconds),
      });
      return;
    }
    const body = await readBody(req, MAX_FUNCTION_URL_BODY_BYTES);
    if (body === 'too-large') {
      refuseUnreadBody(
        res,
        413,
        JSON.stringify({ Message: `Request must be smaller than ${MAX_FUNCTION_URL_BODY_BYTES} bytes.` }),
      );
      return;
    }
    const started = performance.now();
    const result = await options.handler(
      toHttpEvent(req, url, { routeKey: FUNCTION_URL_ROUTE_KEY }, body, ownAddress),
      lambdaContext(FUNCTIONS.publish),
    );
    options.onInvocation?.({
      function: 'publish',
      source: `function URL ${req.method ?? ''} ${url.pathname}`,
      records: 1,
      failed: (result.statusCode ?? 200) >= 500 ? 1 : 0,
      durationMs: performance.now() - started,
    });
    sendResult(res, result);
  };
  try {
    return await listen(options.host, options.port, options.logger, handle);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new LocalStackError(
        `Port ${options.port} on ${options.host} (the publish function URL) is already in use. Stop what is using it, or choose another port with --function-url-port (or ${LOCAL_ENV.functionUrlPort}).`,
      );
    }
    throw error;
  }
}
