/**
 * The whole pipeline on one machine: emulators, resources from the shared definitions, the HTTP
 * API in front of the publish and management handlers, and pollers that feed the delivery
 * handler like Lambda's SQS event source mappings.
 *
 * `startLocalStack` is the list of start-up phases; each phase lives in its own module:
 * `settings.ts`, `data-dir.ts`, `emulators.ts`, `provision.ts` (with `saved-queues.ts` and
 * `bucket-mirror.ts`), `functions.ts`, `event-sources.ts` and `http-api.ts`.
 */
import { resolve } from 'node:path';
import { ENV } from '../shared/config/resources';
import type { RuntimeConfig } from '../shared/config/runtime';
import {
  type AwsClients,
  createAwsClients,
  type LocalCredentials,
  type LocalEndpoints,
} from '../shared/platform/aws';
import type { BacklogAdmission } from './admission';
import { restoreBucket } from './bucket-mirror';
import { openDataDir } from './data-dir';
import { LOCK_FILE } from './data-dir-lock';
import { type Emulators, startEmulators } from './emulators';
import { ENDPOINTS_FILE, writeEndpointsFile } from './endpoints-file';
import { checkEventSourceOptions, createEventSources } from './event-sources';
import { buildLocalFunctions } from './functions';
import type { Gateway, Listener } from './gateway';
import { startHttpApi } from './http-api';
import { localLambdaInvoker } from './lambda-functions';
import { isLoopbackHost, reachableBeyondLoopback } from './loopback';
import { LocalMetrics } from './metrics';
import type { QueuePoller } from './poller';
import { type LocalResources, provisionLocalResources } from './provision';
import { localResourceClients } from './resource-clients';
import { restoreQueues } from './saved-queues';
import { checkedFunctionSettings, localFunctionConfig } from './settings';
import { provisionLocalSources, sourcePollers } from './sources';
import { LocalStackError } from './stack-error';
import type { LocalStackOptions } from './stack-options';
import { ARCHIVE_SWEEP_SCHEDULE, BACKLOG_SWEEP_SCHEDULE, Sweeper } from './sweeper';

export { ADMIN_TOKEN_FILE, HEADER_KEY_FILE, TOPIC_KEY_FILE } from './data-dir';
export { CREDENTIALS_FILE } from './emulator-access';
export { SAVED_QUEUES_FILE } from './saved-queues';
export { LOCAL_CONFIG_DEFAULTS, localFunctionSettings } from './settings';
export type { LocalStackOptions } from './stack-options';
export { ENDPOINTS_FILE, LOCK_FILE, LocalStackError };

export interface LocalStack {
  apiUrl: string;
  /** The publish function's URL: the same publish paths as the API, without its admin routes. */
  functionUrl: string;
  adminToken: string;
  dataDir: string;
  endpoints: LocalEndpoints;
  resources: LocalResources;
  config: RuntimeConfig;
  clients: AwsClients;
  metrics: LocalMetrics;
  /**
   * Runs the archive sweep now, as its daily schedule would (the dead-letter function invoked
   * with `archive-sweep`), and resolves when it is over; a failure is logged, as a scheduled one's.
   */
  sweepArchives(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the stack, phase by phase: settings checked, data directory locked, emulators up (on
 * loopback only), resources provisioned and restored, functions built, queue pollers made, the
 * HTTP API listening, then the pollers started and `endpoints.json` written. A failing phase
 * stops what the earlier ones started.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  const settings = checkedFunctionSettings(options);
  checkEventSourceOptions(options);
  const { unlock, adminToken, sealingKeys, credentials } = await openDataDir(dataDir, options.adminToken);
  const emulators = await startCheckedEmulators(dataDir, host, credentials, options.onFatal, unlock);
  const parts: RunningParts = { emulators, unlock, pollers: [] };
  try {
    const { clients, resources, restored } = await prepareResources(emulators.endpoints, dataDir, options);
    const sources = await provisionLocalSources(clients.sqs, options.sources ?? [], options.timeScale ?? 1);
    const config = localFunctionConfig(
      sources.length === 0
        ? settings
        : { ...settings, [ENV.sources]: JSON.stringify(sources.map((source) => source.definition)) },
      resources,
      sealingKeys,
    );
    const metrics = new LocalMetrics();
    const startedAt = Date.now();
    const functions = buildLocalFunctions({
      config,
      clients,
      metrics,
      ownUrl: () => gatewayUrl(parts),
      options,
    });
    const { pollers, deliveryPoller } = await createEventSources(
      clients,
      resources,
      functions.consumers,
      options,
    );
    pollers.push(
      ...sourcePollers(clients.sqs, sources, functions.sources, {
        ...(options.receiveWaitSeconds === undefined
          ? {}
          : { receiveWaitSeconds: options.receiveWaitSeconds }),
        ...(options.pollersPerQueue === undefined ? {} : { pollersPerQueue: options.pollersPerQueue }),
      }),
    );
    parts.pollers = pollers;
    parts.stopListening = functions.stopListening;
    const archiveSweeper = new Sweeper({
      schedule: ARCHIVE_SWEEP_SCHEDULE,
      handler: functions.deadLetter,
      timeScale: config.timeScale,
      logger: functions.consumers.deadLetter.logger,
    });
    parts.sweepers = [
      new Sweeper({
        schedule: BACKLOG_SWEEP_SCHEDULE,
        handler: functions.delivery,
        timeScale: config.timeScale,
        logger: functions.consumers.delivery.logger,
      }),
      archiveSweeper,
    ];

    const { gateway, functionUrl, admission } = await startHttpApi({
      host,
      adminToken,
      sessionKeyFile: sealingKeys.sessionKeyFile,
      functions,
      clients,
      resources,
      metrics,
      startedAt,
      deliveryPoller,
      sources,
      options,
    });
    parts.gateway = gateway;
    parts.functionUrl = functionUrl;
    parts.admission = admission;
    for (const poller of pollers) poller.start();
    for (const sweeper of parts.sweepers) sweeper.start();

    const urls = { api: gateway.url, functionUrl: functionUrl.url };
    await writeEndpointsFile(dataDir, urls, emulators.endpoints, adminToken, resources);
    if (restored > 0) functions.publishLogger.info('restored queued deliveries', { messages: restored });
    const running = {
      apiUrl: gateway.url,
      functionUrl: functionUrl.url,
      adminToken,
      dataDir,
      endpoints: emulators.endpoints,
    };
    return {
      ...running,
      resources,
      config,
      clients,
      metrics,
      sweepArchives: () => archiveSweeper.sweepOnce(),
      stop: stopOnce(parts),
    };
  } catch (error) {
    await stopParts(parts);
    throw error;
  }
}

/**
 * Starts the emulators on `host` (taking `credentials` only) and checks they answer nowhere else; on failure they are
 * stopped and the data directory unlocked. `onFatal` hears of an emulator process that dies
 * while the stack runs (default: print it).
 */
async function startCheckedEmulators(
  dataDir: string,
  host: string,
  credentials: LocalCredentials,
  onFatal: LocalStackOptions['onFatal'],
  unlock: () => Promise<void>,
): Promise<Emulators> {
  let emulators: Emulators;
  try {
    emulators = await startEmulators({
      dataDir,
      host,
      credentials,
      onUnexpectedExit: (code, signal) =>
        (onFatal ?? ((error) => console.error(`gridwire: ${error.message}`)))(
          new Error(
            `the emulator process stopped unexpectedly (${signal === null ? `exit code ${code}` : `killed by ${signal}`}); the local stack cannot continue`,
          ),
        ),
    });
  } catch (error) {
    await unlock();
    throw error;
  }
  try {
    await refuseBeyondLoopback(host, [emulators.ports.sqs, emulators.ports.dynamodb]);
  } catch (error) {
    await emulators.stop();
    await unlock();
    throw error;
  }
  return emulators;
}

/**
 * The emulators take only the stack's credentials; still, told to listen on loopback, they must
 * answer nowhere else.
 * Throws if one of `ports` accepts a connection at another of this machine's `addresses`.
 */
export async function refuseBeyondLoopback(
  host: string,
  ports: readonly number[],
  addresses?: readonly string[],
): Promise<void> {
  if (!isLoopbackHost(host)) return;
  const exposed = await reachableBeyondLoopback(ports, addresses);
  if (exposed.length > 0) {
    throw new LocalStackError(
      `The emulators answer on ${exposed.join(', ')}, not only on ${host}: anyone who can reach this machine could read and write the queues and the bucket. Not starting.`,
    );
  }
}

/**
 * The AWS clients (routed as `options.routeClients` says), the queues, table and buckets, and
 * what an earlier version saved outside the emulators put back; `restored` counts the messages.
 */
async function prepareResources(
  endpoints: LocalEndpoints,
  dataDir: string,
  options: Pick<
    LocalStackOptions,
    'routeClients' | 'instrumentClients' | 'visibilityTimeoutSeconds' | 'lambdaFunctions' | 'logLevel'
  >,
): Promise<{ clients: AwsClients; resources: LocalResources; restored: number }> {
  const routed = (await options.routeClients?.(endpoints)) ?? endpoints;
  // The emulator's queues and topics as destinations, with clients of their own (not instrumented:
  // they are the subscribers' resources, not the stack's).
  const functions = options.lambdaFunctions ?? {};
  const lambda =
    Object.keys(functions).length === 0
      ? undefined
      : localLambdaInvoker(functions, (name, error) => {
          if (options.logLevel !== 'SILENT')
            console.error(`gridwire: the local function ${name} failed: ${error.message}`);
        });
  const clients = {
    ...createAwsClients(routed),
    resources: localResourceClients(routed.sqs, routed.credentials, lambda),
  };
  options.instrumentClients?.(clients);
  const resources = await provisionLocalResources(clients, {
    ...(options.visibilityTimeoutSeconds === undefined
      ? {}
      : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
  });
  const restored = await restoreQueues(clients, resources, dataDir);
  await restoreBucket(clients.s3, resources.bucketName, dataDir);
  return { clients, resources, restored };
}

/** What of the stack is running so far: each phase adds its part, and stopping stops them. */
interface RunningParts {
  emulators: Emulators;
  unlock: () => Promise<void>;
  pollers: QueuePoller[];
  /** Ends late listens at once, so invocations waiting on them end too. */
  stopListening?: () => void;
  /** The scheduled sweeps (backlog, archive). */
  sweepers?: Pick<Sweeper<unknown>, 'start' | 'stop'>[];
  admission?: BacklogAdmission | undefined;
  gateway?: Gateway;
  functionUrl?: Listener;
}

/**
 * Stop order matters: no new requests, then no new invocations (waiting for those running),
 * then the emulators. Queues are on disk all along (the emulators write every change through),
 * so nothing needs saving; a `queues.json` left by an earlier version is put back at start.
 */
async function stopParts(parts: RunningParts): Promise<void> {
  try {
    await Promise.all([parts.gateway?.stop(), parts.functionUrl?.stop()]);
    parts.admission?.stop();
    // Invocations still listening to timed-out requests for a late answer end now, not at their
    // window's close; a late answer is best effort, and an unrecorded one means a retry.
    parts.stopListening?.();
    await Promise.all([
      ...parts.pollers.map((poller) => poller.stop()),
      ...(parts.sweepers ?? []).map((sweeper) => sweeper.stop()),
    ]);
  } finally {
    await parts.emulators.stop();
    await parts.unlock();
  }
}

/** `stop()` of the running stack: the first call stops it, later ones wait for the same stop. */
function stopOnce(parts: RunningParts): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= stopParts(parts);
    return stopping;
  };
}

/** The stack's own address, known once the gateway listens (before any request can come in). */
function gatewayUrl(parts: RunningParts): string {
  if (parts.gateway === undefined) throw new Error('the local gateway is not listening yet');
  return parts.gateway.url;
}
