/**
 * The local stack's HTTP API: the gateway in front of the publish and management handlers, the
 * admission gate that throttles publishing while fresh deliveries back up, and the stack's own
 * status route.
 */
import { LOCAL_ENV } from '../shared/config/resources';
import type { LoggerLike } from '../shared/observability/logging';
import type { AwsClients } from '../shared/platform/aws';
import { ADMISSION_DEFAULTS, BacklogAdmission } from './admission';
import type { LocalFunctions } from './functions';
import { type Gateway, type GatewayOptions, startGateway } from './gateway';
import type { LocalMetrics } from './metrics';
import type { QueuePoller } from './poller';
import type { LocalResources } from './provision';
import type { LocalStackOptions } from './stack';
import { LocalStackError } from './stack-error';
import { attributesOf, LOCAL_STATUS_PATH, localStatusDocument } from './status';

/** The API port when none is given. */
export const DEFAULT_API_PORT = 4000;

export interface HttpApiInput {
  host: string;
  adminToken: string;
  functions: Pick<LocalFunctions, 'http' | 'publishLogger' | 'managementLogger'>;
  clients: AwsClients;
  resources: LocalResources;
  metrics: LocalMetrics;
  /** When the stack started: the status route's totals count from then. */
  startedAt: number;
  /** The delivery queue's poller, whose finished jobs are the drain rate the admission gate reads. */
  deliveryPoller: QueuePoller | undefined;
  options: Pick<LocalStackOptions, 'port' | 'admission' | 'onInvocation'>;
}

export interface HttpApi {
  gateway: Gateway;
  admission?: BacklogAdmission;
}

/**
 * Starts the admission gate (unless `admission: false`) and the gateway behind it. If the
 * gateway cannot listen, the gate is stopped again; a port in use is a `LocalStackError`.
 */
export async function startHttpApi(input: HttpApiInput): Promise<HttpApi> {
  const { host, adminToken, functions, clients, resources, options } = input;
  const admission = createAdmission(
    options.admission,
    clients,
    resources,
    input.deliveryPoller,
    functions.publishLogger,
  );
  admission?.start();
  try {
    const gateway = await openGateway({
      host,
      port: options.port ?? DEFAULT_API_PORT,
      adminToken,
      handlers: functions.http,
      logger: functions.managementLogger,
      ...(options.onInvocation === undefined ? {} : { onInvocation: options.onInvocation }),
      ...(admission === undefined ? {} : { admission }),
      localRoutes: localStatusRoutes(input.startedAt, input.metrics, clients, resources),
    });
    return { gateway, ...(admission === undefined ? {} : { admission }) };
  } catch (error) {
    admission?.stop();
    throw error;
  }
}

/**
 * The admission gate of `options` (none with `admission: false`), reading the delivery queue's
 * backlog and, when there is one, the delivery poller's drain rate. Not started.
 */
function createAdmission(
  options: LocalStackOptions['admission'],
  clients: AwsClients,
  resources: LocalResources,
  deliveryPoller: QueuePoller | undefined,
  logger: LoggerLike,
): BacklogAdmission | undefined {
  if (options === false) return undefined;
  return new BacklogAdmission({
    ...ADMISSION_DEFAULTS,
    ...options,
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

/** `GET /local/status`: the metric totals since `startedAt` and the queue depths. */
function localStatusRoutes(
  startedAt: number,
  metrics: LocalMetrics,
  clients: AwsClients,
  resources: LocalResources,
): NonNullable<GatewayOptions['localRoutes']> {
  return {
    [`GET ${LOCAL_STATUS_PATH}`]: async () => ({
      status: 200,
      body: JSON.stringify(await localStatusDocument(startedAt, metrics, clients.sqs, resources)),
    }),
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
