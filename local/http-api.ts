/**
 * The local stack's front doors: the HTTP API (the gateway in front of the publish and
 * management handlers, with the stack's own status route and the console), the publish
 * function's URL beside it, and the admission gate that throttles publishing at both while fresh
 * deliveries back up.
 */

import { deliveryBatchingOf } from '../shared/config/event-source-mapping';
import { LOCAL_ENV } from '../shared/config/resources';
import { readOldestOverdue } from '../shared/delivery/backlog/sweep';
import type { LoggerLike } from '../shared/observability/logging';
import type { AwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import { FileSessionKeys, type SessionKeys } from '../shared/sessions/keys';
import { bearerToken, openSessionToken } from '../shared/sessions/token';
import { DynamoBacklogStore } from '../shared/storage/backlog';
import { admissionSettings, BacklogAdmission } from './admission';
import { startFunctionUrl } from './function-url';
import type { LocalFunctions } from './functions';
import { type Gateway, type GatewayOptions, type Listener, startGateway } from './gateway';
import type { LocalMetrics } from './metrics';
import type { QueuePoller } from './poller';
import type { LocalResources } from './provision';
import { LOCAL_EVENTBRIDGE_PATH, type LocalSource, sendToEventBridgeSource } from './sources';
import { LocalStackError } from './stack-error';
import type { LocalStackOptions } from './stack-options';
import { attributesOf, LOCAL_STATUS_PATH, localStatusDocument } from './status';

/** The API port when none is given. */
export const DEFAULT_API_PORT = 4000;

/**
 * The publish function URL's port when none is given: the one after the API's (a free one when
 * the API's is picked freely, port 0, or is the last port there is).
 */
export const defaultFunctionUrlPort = (apiPort: number): number =>
  apiPort === 0 || apiPort >= 65535 ? 0 : apiPort + 1;

export interface HttpApiInput {
  host: string;
  adminToken: string;
  /** The session key's file: an operator session may read the stack's status too. */
  sessionKeyFile: string;
  functions: Pick<LocalFunctions, 'http' | 'publishLogger' | 'managementLogger'>;
  clients: AwsClients;
  resources: LocalResources;
  metrics: LocalMetrics;
  /** When the stack started: the status route's totals count from then. */
  startedAt: number;
  /** The delivery queue's poller, whose finished jobs are the drain rate the admission gate reads. */
  deliveryPoller: QueuePoller | undefined;
  /** The sources `--source` gave: each `eventbridge:` one has its route standing for its rule. */
  sources?: readonly LocalSource[];
  options: Pick<
    LocalStackOptions,
    'port' | 'functionUrlPort' | 'admission' | 'onInvocation' | 'onExchange' | 'clock'
  >;
}

export interface HttpApi {
  gateway: Gateway;
  /** The publish function's URL (the second front door; publishing with keys only). */
  functionUrl: Listener;
  admission?: BacklogAdmission;
}

/**
 * Starts the admission gate (unless `admission: false`), the gateway and the publish function's
 * URL behind it. If either cannot listen, what started is stopped again; a port in use is a
 * `LocalStackError`.
 */
export async function startHttpApi(input: HttpApiInput): Promise<HttpApi> {
  const { host, adminToken, functions, clients, resources, options } = input;
  const admission = createAdmission(
    options,
    clients,
    resources,
    input.deliveryPoller,
    functions.publishLogger,
  );
  admission?.start();
  const apiPort = options.port ?? DEFAULT_API_PORT;
  let gateway: Gateway | undefined;
  try {
    gateway = await openGateway({
      host,
      port: apiPort,
      adminToken,
      handlers: functions.http,
      logger: functions.managementLogger,
      ...(options.onInvocation === undefined ? {} : { onInvocation: options.onInvocation }),
      ...(options.onExchange === undefined ? {} : { onExchange: options.onExchange }),
      ...(admission === undefined ? {} : { admission }),
      localRoutes: {
        ...localStatusRoutes(
          input.startedAt,
          input.metrics,
          clients,
          resources,
          options.clock ?? systemClock,
        ),
        ...eventBridgeRoutes(clients, input.sources ?? []),
      },
      // The console reads the status with its session token.
      isOperatorSession: operatorSessionCheck(new FileSessionKeys(input.sessionKeyFile)),
    });
    const functionUrl = await startFunctionUrl({
      host,
      port: options.functionUrlPort ?? defaultFunctionUrlPort(apiPort),
      handler: functions.http.publish,
      logger: functions.publishLogger,
      ...(options.onInvocation === undefined ? {} : { onInvocation: options.onInvocation }),
      ...(admission === undefined ? {} : { admission }),
    });
    return { gateway, functionUrl, ...(admission === undefined ? {} : { admission }) };
  } catch (error) {
    await gateway?.stop();
    admission?.stop();
    throw error;
  }
}

/**
 * The admission gate of `options` (none with `admission: false`), reading the delivery queue's
 * backlog and, when there is one, the delivery poller's drain rate. Not started.
 */
function createAdmission(
  options: Pick<LocalStackOptions, 'admission' | 'deliveryBatchingWindow'>,
  clients: AwsClients,
  resources: LocalResources,
  deliveryPoller: QueuePoller | undefined,
  logger: LoggerLike,
): BacklogAdmission | undefined {
  if (options.admission === false) return undefined;
  return new BacklogAdmission({
    ...admissionSettings(options.admission, deliveryBatchingOf(options.deliveryBatchingWindow).seconds),
    // Waiting and being worked on: the delivery workers take messages in as fast as they have
    // slots, so a backlog shows as messages in flight as much as waiting ones.
    backlog: async () => {
      const counts = await attributesOf(clients.sqs, resources.queueUrls.delivery);
      return (counts.ApproximateNumberOfMessages ?? 0) + (counts.ApproximateNumberOfMessagesNotVisible ?? 0);
    },
    ...(deliveryPoller === undefined ? {} : { drained: () => deliveryPoller.completed }),
    onError: (error) => logger.debug('could not read the delivery backlog', { error: error.message }),
  });
}

/**
 * `GET /local/status`: the metric totals since `startedAt`, the queue depths, and the oldest
 * overdue backlog wake, from the timer index read at that moment by the functions' clock.
 */
function localStatusRoutes(
  startedAt: number,
  metrics: LocalMetrics,
  clients: AwsClients,
  resources: LocalResources,
  clock: Clock,
): NonNullable<GatewayOptions['localRoutes']> {
  const timers = new DynamoBacklogStore(
    clients.dynamo,
    resources.tableName,
    clients.s3,
    resources.backlogBucketName,
  );
  const oldestOverdue = () => readOldestOverdue(timers, clock.now());
  return {
    [`GET ${LOCAL_STATUS_PATH}`]: async () => ({
      status: 200,
      body: JSON.stringify(
        await localStatusDocument(startedAt, metrics, clients.sqs, resources, oldestOverdue),
      ),
    }),
  };
}

/** `POST /local/eventbridge/<name>` for each `eventbridge:` source: the events sent to its queue, as its rule would. */
function eventBridgeRoutes(
  clients: AwsClients,
  sources: readonly LocalSource[],
): NonNullable<GatewayOptions['localRoutes']> {
  return Object.fromEntries(
    sources
      .filter((source) => source.spec.kind === 'eventBridge')
      .map((source) => [
        `POST ${LOCAL_EVENTBRIDGE_PATH}${source.spec.name}`,
        async ({ body }: { body: string }) => {
          const answer = await sendToEventBridgeSource(clients.sqs, sources, source.spec.name, body);
          return {
            status: answer.status,
            body: JSON.stringify(answer.body),
            contentType: 'application/json',
          };
        },
      ]),
  );
}

/** Whether an `Authorization` header carries an operator session's token, good now. */
function operatorSessionCheck(keys: SessionKeys): (authorization: string | undefined) => Promise<boolean> {
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return false;
    try {
      return openSessionToken(token, await keys.current(), Date.now()).scope.role === 'operator';
    } catch {
      return false;
    }
  };
}

/** Starts the gateway; a port in use is a `LocalStackError` saying how to choose another. */
async function openGateway(options: GatewayOptions): Promise<Gateway> {
  try {
    return await startGateway(options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new LocalStackError(
        `Port ${options.port} on ${options.host} is already in use. Stop what is using it, or choose another port with --port (or ${LOCAL_ENV.port}).`,
      );
    }
    throw error;
  }
}
