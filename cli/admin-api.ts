/**
 * The operator commands' client of the management API (`/admin/...`): the local stack by default
 * (its `endpoints.json` names the API and the admin token), or a deployed API with `--api`,
 * signing each request with SigV4 (`execute-api`) and the caller's AWS credentials, as API
 * Gateway's IAM authorization wants. The commands call the API through the typed client
 * (`shared/client/api.ts`, the API's description as types), which sends through the target's
 * transport.
 */
import type { SignatureV4 } from '@smithy/signature-v4';
import { type Command, Option } from 'commander';
import type { GridwireApiClient, paths } from '../shared/client/api';
import { CliError, explainAwsError } from './errors';
import { dataDirOption } from './options';
import { runningLocalStack } from './targets';

export interface ApiAnswer {
  status: number;
  text: string;
  /** The answer's headers, when it came over HTTP. */
  headers?: Headers;
}

/** Where the management API is, and how to call it (authentication included). */
export interface ApiTarget extends ApiTransport {
  /**
   * The API's typed client: each call's path, parameters, body and answer as the API's
   * description has them. It sends through {@link ApiTransport.call}, so its requests carry the
   * token or are signed as those are, and an API that gives no answer is the same `CliError`.
   */
  client: GridwireApiClient;
}

/** Where the management API is, and its plain transport. */
export interface ApiTransport {
  /** For messages: "the local stack in /path" or the API URL. */
  where: string;
  /** The API's base URL, which also serves the publish routes. */
  url: string;
  /**
   * Sends one request: `path` starts with `/` and may carry a query string; `body` is JSON text.
   * The commands call through {@link ApiTarget.client}; this is for a path the API's description
   * does not have (the local stack's own `/local/status`).
   */
  call(method: ApiMethod, path: string, body?: string): Promise<ApiAnswer>;
}

/** The methods the management API's routes take. */
export type ApiMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

const urlOf = (apiUrl: string, path: string) => new URL(`${apiUrl.replace(/\/+$/, '')}${path}`);

/** The answer each response the client was given stands for, its body's text as it came. */
const answers = new WeakMap<Response, ApiAnswer>();

/** Statuses whose `Response` has no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A query string as the commands have always sent it: form-encoded, its names in the order given. */
const formQuery = (query: Record<string, unknown>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  return search.toString();
};

/**
 * The target of `transport`, with a typed client that sends through it: the client's request
 * becomes a `call` (its path and query after the API's URL, its body's JSON text), and the
 * answer a `Response` of the same status, headers and text.
 */
export function apiTarget(transport: ApiTransport): ApiTarget {
  // openapi-fetch loads here, when a command calls the API, not with the command definitions.
  const { createApiClient } = require('../shared/client/api') as typeof import('../shared/client/api');
  const base = new URL(`${transport.url.replace(/\/+$/, '')}/`).href.slice(0, -1);
  const client = createApiClient({
    baseUrl: transport.url,
    querySerializer: formQuery,
    fetch: async (request) => {
      const url = new URL(request.url);
      const path = request.url.startsWith(`${base}/`)
        ? request.url.slice(base.length)
        : `${url.pathname}${url.search}`;
      const body = await request.text();
      const answer = await transport.call(request.method as ApiMethod, path, body === '' ? undefined : body);
      const response = new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.text, {
        status: answer.status,
        ...(answer.headers === undefined ? {} : { headers: answer.headers }),
      });
      answers.set(response, answer);
      return response;
    },
  });
  return { ...transport, client };
}

/** The answer a client call was given: status, headers and its body's text. */
export const answerOf = (response: Response): ApiAnswer =>
  answers.get(response) ?? { status: response.status, text: '', headers: response.headers };

/**
 * A client call's data when its status is 2xx; otherwise a `CliError` saying what failed, with
 * the API's message (as {@link okText}).
 */
export function okData<Result extends { data?: unknown; response: Response }>(
  result: Result,
  doing: string,
): Exclude<Result['data'], undefined> {
  okText(answerOf(result.response), doing);
  return result.data as Exclude<Result['data'], undefined>;
}

/** Sends one request; a request that gets no answer at all is a `CliError` naming `where`. */
export async function send(url: URL, init: RequestInit, where: string): Promise<ApiAnswer> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `could not reach ${where} at ${url.origin} (${cause?.code ?? cause?.message ?? (error as Error).message})`,
    );
  }
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** An API that takes `Authorization: Bearer <token>` (the local stack's admin routes). */
export function bearerTarget(apiUrl: string, token: string, where = apiUrl): ApiTarget {
  return apiTarget({
    where,
    url: apiUrl,
    call: (method, path, body) =>
      send(
        urlOf(apiUrl, path),
        {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body }),
        },
        where,
      ),
  });
}

/**
 * The API of the local stack running in `dataDir`, with its admin token; when none runs there,
 * the error suggests `otherwise` (default `--api`, for commands that take one).
 */
export async function localApiTarget(dataDir: string, otherwise = '--api <url>'): Promise<ApiTarget> {
  const { dir, file, endpoints } = await runningLocalStack(dataDir, otherwise);
  if (typeof endpoints.api !== 'string' || typeof endpoints.adminToken !== 'string') {
    throw new CliError(`${file} has no API URL or admin token; restart the local stack`);
  }
  return bearerTarget(endpoints.api, endpoints.adminToken, `the local stack in ${dir}`);
}

/** The region in an API Gateway URL (`https://<id>.execute-api.<region>.amazonaws.com`). */
export function regionOfApiUrl(apiUrl: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(new URL(apiUrl).hostname)?.[1];
}

type SignerCredentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

/**
 * A deployed API whose admin routes use IAM: each request is signed with SigV4 for
 * `execute-api`. Region: `options.region`, else the one in the URL, else `AWS_REGION`;
 * credentials: the AWS SDK's default chain (environment, profile, SSO, instance role...).
 */
export function sigV4Target(
  apiUrl: string,
  options: { region?: string; credentials?: SignerCredentials } = {},
): ApiTarget {
  let base: URL;
  try {
    base = new URL(apiUrl);
  } catch {
    throw new CliError(`--api: not a URL: ${apiUrl}`);
  }
  const region =
    options.region ?? regionOfApiUrl(base.href) ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (region === undefined || region === '') {
    throw new CliError('no AWS region for the API; pass --region or set AWS_REGION');
  }
  // The AWS SDK's signer and credential chain load here, when a command calls a deployed API, so
  // commands that don't (and `--help`) start without them (see `cli/program.ts`).
  const { SignatureV4 } = require('@smithy/signature-v4') as typeof import('@smithy/signature-v4');
  const { Sha256 } = require('@smithy/core/checksum') as typeof import('@smithy/core/checksum');
  const credentials =
    options.credentials ??
    (
      require('@aws-sdk/credential-provider-node') as typeof import('@aws-sdk/credential-provider-node')
    ).defaultProvider();
  const signer = new SignatureV4({
    service: 'execute-api',
    region,
    credentials,
    sha256: Sha256,
  });
  return apiTarget({
    where: apiUrl,
    url: apiUrl,
    call: async (method, path, body) => {
      const url = urlOf(apiUrl, path);
      const query: Record<string, string> = {};
      for (const [name, value] of url.searchParams) query[name] = value;
      let signed: { headers: Record<string, string> };
      try {
        signed = await signer.sign({
          method,
          protocol: url.protocol,
          hostname: url.hostname,
          ...(url.port === '' ? {} : { port: Number(url.port) }),
          path: url.pathname,
          query,
          headers: {
            host: url.host,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body }),
        });
      } catch (error) {
        throw explainAwsError(error, 'signing the request with your AWS credentials');
      }
      // fetch sets Host itself, to the same value.
      const { host: _host, ...headers } = signed.headers;
      return send(url, { method, headers, ...(body === undefined ? {} : { body }) }, apiUrl);
    },
  });
}

/** The API's error message (`{"error":{"message":..}}`, or API Gateway's `{"message":..}`). */
export function messageOf(answer: ApiAnswer): string {
  try {
    const body = JSON.parse(answer.text) as { error?: { message?: unknown }; message?: unknown };
    const message = body.error?.message ?? body.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: the text itself.
  }
  return answer.text === '' ? '(no message)' : answer.text;
}

/** The answer's text if it is a 2xx; otherwise a `CliError` saying what failed. */
export function okText(answer: ApiAnswer, doing: string): string {
  if (answer.status < 200 || answer.status > 299) {
    const hint = answer.status === 403 ? ' (on AWS the caller needs execute-api:Invoke on /admin/*)' : '';
    throw new CliError(`${doing} failed: HTTP ${answer.status}: ${messageOf(answer)}${hint}`);
  }
  return answer.text;
}

/** The options that choose the API: `--data-dir` (local), or `--api` and `--region`. */
export interface ApiTargetOptions {
  dataDir: string;
  api?: string;
  region?: string;
}

/** The API the options name: a deployed one with `--api`, else the local stack in `--data-dir`. */
export async function resolveApiTarget(options: ApiTargetOptions): Promise<ApiTarget> {
  if (options.api !== undefined) {
    return sigV4Target(options.api, options.region === undefined ? {} : { region: options.region });
  }
  if (options.region !== undefined) throw new CliError('--region goes with --api');
  return localApiTarget(options.dataDir);
}

/** A topic, classic or (with `namespace`) a namespace topic. */
export interface TopicRef {
  namespace?: string;
  topic: string;
}

/** An event subscription of a classic or namespace topic. */
export interface SubscriptionRef extends TopicRef {
  subscription: string;
}

/** The admin path of a topic, classic or (with a namespace) of a namespace; the others build on it. */
export function topicAdminPath(ref: TopicRef): string {
  const topic = `topics/${encodeURIComponent(ref.topic)}`;
  const scope =
    ref.namespace === undefined ? topic : `namespaces/${encodeURIComponent(ref.namespace)}/${topic}`;
  return `/admin/${scope}`;
}

/** The admin path of a topic's subscription list; {@link subscriptionAdminPath} builds on it. */
export const subscriptionsAdminPath = (ref: TopicRef): string => `${topicAdminPath(ref)}/eventSubscriptions`;

/**
 * The admin path of a subscription (`/admin/topics/{topic}/eventSubscriptions/{subscription}`,
 * or `/admin/namespaces/{namespace}/topics/...` for a namespace topic's); every command's
 * subscription routes (`/health`, `/enable`, `/deadLetters...`) hang off it.
 */
export function subscriptionAdminPath(ref: SubscriptionRef): string {
  return `${subscriptionsAdminPath(ref)}/${encodeURIComponent(ref.subscription)}`;
}

/**
 * A route of a topic as the API's description names it: a classic topic's
 * (`/admin/topics/{topic}...`) or a namespace topic's (`/admin/namespaces/{namespace}/topics/{topic}...`).
 */
export type TopicRoute<Rest extends string = ''> =
  | `/admin/topics/{topic}${Rest}`
  | `/admin/namespaces/{namespace}/topics/{topic}${Rest}`;

/**
 * The route of `ref`'s topic, followed by `rest`; a call fills in its `{namespace}` and `{topic}`
 * from `ref` given as the path parameters (`params: { path: ref }`).
 */
export function topicRoute<Rest extends string = ''>(ref: TopicRef, rest = '' as Rest): TopicRoute<Rest> {
  return (
    ref.namespace === undefined
      ? `/admin/topics/{topic}${rest}`
      : `/admin/namespaces/{namespace}/topics/{topic}${rest}`
  ) as TopicRoute<Rest>;
}

/** A route of a subscription (`.../eventSubscriptions/{subscription}...`) of a classic or namespace topic. */
export type SubscriptionRoute<Rest extends string = ''> =
  TopicRoute<`/eventSubscriptions/{subscription}${Rest}`>;

/** The route of `ref`'s subscription, followed by `rest`; its path parameters are `ref`'s. */
export const subscriptionRoute = <Rest extends string = ''>(
  ref: SubscriptionRef,
  rest = '' as Rest,
): SubscriptionRoute<Rest> =>
  topicRoute(ref, `/eventSubscriptions/{subscription}${rest}` as `/eventSubscriptions/{subscription}${Rest}`);

type JsonBodyOf<Operation> = Operation extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/**
 * The JSON body a route takes, as the API's description has it: for a body the commands build
 * from their flags (the API checks it), `JsonBody<TopicRoute, 'put'>`.
 */
export type JsonBody<Route extends keyof paths, Method extends 'put' | 'post'> = JsonBodyOf<
  paths[Route][Method]
>;

/** A topic in messages: `topic T`, or `namespace N, topic T`. */
export const topicLabel = (ref: TopicRef): string =>
  ref.namespace === undefined ? `topic ${ref.topic}` : `namespace ${ref.namespace}, topic ${ref.topic}`;

/** A subscription in messages: `topic T, subscription S` (namespace first when there is one). */
export const subscriptionLabel = (ref: SubscriptionRef): string =>
  `${topicLabel(ref)}, subscription ${ref.subscription}`;

/** `--namespace`, which makes `--topic` name a topic of that namespace. */
export const namespaceOption = (): Option =>
  new Option('--namespace <name>', 'the namespace, when --topic names a namespace topic');

/** Adds `--data-dir`, `--api` and `--region` to a command. */
export function withApiTargetOptions(command: Command): Command {
  return command
    .addOption(dataDirOption('data directory of the local stack to talk to'))
    .addOption(
      new Option(
        '--api <url>',
        'a deployed API (the ApiUrl stack output) instead of the local stack; requests are signed with your AWS credentials',
      ),
    )
    .addOption(
      new Option('--region <region>', "the API's AWS region (default: from the URL, else AWS_REGION)"),
    );
}
