/**
 * The whole pipeline on one machine: emulators, resources from the shared definitions, the HTTP
 * API in front of the publish and management handlers, and pollers that feed the delivery
 * handler like Lambda's SQS event source mappings.
 */
import { randomBytes } from 'node:crypto';
import { access, chmod, constants, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createDeadLetterHandler } from '../functions/dead-letter';
import { createDeliveryHandler } from '../functions/delivery';
import { createManagementHandler } from '../functions/management';
import { createPublishHandler } from '../functions/publish';
import {
  BUCKET,
  ENV,
  FAN_OUT_BUCKET,
  FUNCTIONS,
  LOCAL_ENV,
  QUEUES,
  type QueueKey,
  SQS_LIMITS,
  TABLE,
} from '../shared/config/resources';
import { type RuntimeConfig, readConfig } from '../shared/config/runtime';
import type { WebhookSender } from '../shared/delivery/webhook-sender';
import {
  buildDeadLetterStep,
  buildDeliveryEngine,
  buildManagementDeps,
  buildPublisher,
  createObservability,
  type ObservabilityOptions,
} from '../shared/lambda/wiring';
import type { LoggerLike } from '../shared/observability/logging';
import { type AwsClients, createAwsClients, type LocalEndpoints } from '../shared/platform/aws';
import type { Clock, Random } from '../shared/platform/clock';
import { sendJobs } from '../shared/queue/sqs-job-queue';
import { ADMISSION_DEFAULTS, type AdmissionOptions, BacklogAdmission } from './admission';
import { restoreBucket } from './bucket-mirror';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from './data-dir-lock';
import { type Emulators, startEmulators } from './emulators';
import { ENDPOINTS_FILE, type EndpointsFile } from './endpoints-file';
import { type Gateway, type HttpHandler, startGateway } from './gateway';
import type { InvocationStats } from './lambda-context';
import { isLoopbackHost, reachableBeyondLoopback } from './loopback';
import { LocalMetrics } from './metrics';
import { QueuePoller, type SqsHandler } from './poller';
import { type LocalResources, provisionLocalResources } from './provision';
import { attributesOf, LOCAL_STATUS_PATH, localStatusDocument } from './status';

export interface LocalStackOptions {
  /** Directory for DynamoDB files, the admin token, endpoints.json and saved queue contents. */
  dataDir: string;
  /** API port; 0 picks a free one. */
  port?: number;
  host?: string;
  /**
   * The API's public URL, the base of validation URLs and topic endpoints (`--public-url`);
   * default: the stack's own address, `http://<host>:<port>`. Never taken from a request.
   */
  publicUrl?: string;
  /** Divides every delivery delay and TTL (demos and tests). */
  timeScale?: number;
  /** Endpoints must pass the validation handshake before events are matched to them (default off). */
  validateEndpoints?: boolean;
  /** Refuse endpoint URLs aimed at loopback, private and other non-public addresses (default off). */
  blockPrivateEndpoints?: boolean;
  /** Fixed admin token; otherwise the one stored in the data directory (created on first start). */
  adminToken?: string;
  logLevel?: ObservabilityOptions['logLevel'];
  /** Queue visibility timeout override (tests that crash a worker on purpose). */
  visibilityTimeoutSeconds?: number;
  /**
   * How long publish trusts a cached topic; management calls wait this long so changes are live
   * when they return. Default 0 locally (one small read per publish request instead).
   */
  topicCacheMs?: number;
  /** How long delivery trusts a cached subscription (default 2 s locally). */
  subscriptionCacheSeconds?: number;
  /** Webhook requests one delivery invocation has in flight (default as on AWS). */
  deliveryConcurrency?: number;
  /** Days failed-attempt history is kept (default as on AWS; dynalite never expires items). */
  historyRetentionDays?: number;
  /**
   * Receive loops per queue (Lambda's pollers; default 2). Each hands its batches to invocations
   * without waiting for them, so this bounds receives, not invocations.
   */
  pollersPerQueue?: number;
  /**
   * Lowers the invocations in flight per queue (default: the queue's `consumer.maxConcurrency`,
   * as on AWS; a larger value is ignored).
   */
  maxConcurrency?: number;
  /**
   * Throttling of publish requests while fresh deliveries back up (429 with `Retry-After`, as API
   * Gateway's throttle answers); `false` turns it off. Defaults in `ADMISSION_DEFAULTS`.
   */
  admission?:
    | Partial<
        Pick<
          AdmissionOptions,
          'highWater' | 'lowWater' | 'highWaterSeconds' | 'lowWaterSeconds' | 'retryAfterSeconds'
        >
      >
    | false;
  clock?: Clock;
  random?: Random;
  sender?: WebhookSender;
  /** Called after every handler invocation (HTTP and queue), e.g. to model Lambda cost. */
  onInvocation?: (stats: InvocationStats) => void;
  /** Called once the AWS SDK clients exist, before anything uses them (e.g. to count requests). */
  instrumentClients?: (clients: AwsClients) => void;
  /**
   * Where the stack's AWS clients reach the emulators, given where the emulators listen (tests
   * put a fault-injecting proxy in between). `endpoints.json` keeps the emulators' own endpoints.
   */
  routeClients?: (endpoints: LocalEndpoints) => LocalEndpoints | Promise<LocalEndpoints>;
  /** Called if the stack breaks while running (the emulator process died). Default: print it. */
  onFatal?: (error: Error) => void;
  /** Wraps the delivery handler the pollers invoke (fault injection in tests). */
  wrapDeliveryHandler?: (handler: SqsHandler) => SqsHandler;
}

export interface LocalStack {
  apiUrl: string;
  adminToken: string;
  dataDir: string;
  endpoints: LocalEndpoints;
  resources: LocalResources;
  config: RuntimeConfig;
  clients: AwsClients;
  metrics: LocalMetrics;
  stop(): Promise<void>;
}

/** A start-up problem the user can fix (port taken, data directory unusable). */
export class LocalStackError extends Error {
  override readonly name = 'LocalStackError';
}

export { ENDPOINTS_FILE, LOCK_FILE };
export const ADMIN_TOKEN_FILE = 'admin-token';
/** The key that seals secret delivery header values (the stack's Secrets Manager secret on AWS). */
export const HEADER_KEY_FILE = 'header-key';
/** The key that seals topic and namespace access keys in the table. */
export const TOPIC_KEY_FILE = 'topic-key';
export const SAVED_QUEUES_FILE = 'queues.json';

/** One local stack per data directory (see `data-dir-lock.ts`). */
async function lockDataDirOrExplain(dataDir: string): Promise<() => Promise<void>> {
  try {
    return await lockDataDir(dataDir);
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new LocalStackError(error.message);
    throw new LocalStackError(
      `Could not lock the data directory ${dataDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose another with --data-dir.`,
    );
  }
}

/**
 * Makes what a data directory of an earlier version holds (written with the default modes) this
 * user's only: directories 0700, files 0600. New files are created so.
 */
async function restrictDataDir(dataDir: string): Promise<void> {
  let path = dataDir;
  try {
    await chmod(path, 0o700);
    for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
      path = join(entry.parentPath, entry.name);
      if (entry.isDirectory()) await chmod(path, 0o700);
      else if (entry.isFile()) await chmod(path, 0o600);
    }
  } catch (error) {
    throw new LocalStackError(
      `Could not make ${path} readable by this user only (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Fix its owner, or choose another --data-dir.`,
    );
  }
}

/**
 * The emulators take no credentials: told to listen on loopback, they must answer nowhere else.
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

async function prepareDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await access(dataDir, constants.W_OK | constants.R_OK);
  } catch (error) {
    throw new LocalStackError(
      `The data directory ${dataDir} is not usable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose another with --data-dir.`,
    );
  }
}

async function loadAdminToken(dataDir: string, fixed: string | undefined): Promise<string> {
  if (fixed !== undefined && fixed !== '') return fixed;
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored !== '') return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(24).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * A sealing key of this data directory (`file`), created on first start and kept: values sealed
 * with it (in the table's files) open after a restart. It is never printed.
 */
async function loadSealingKey(dataDir: string, name: string): Promise<string> {
  const file = join(dataDir, name);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored !== '') return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

interface SavedQueues {
  savedAt: string;
  queues: Record<string, string[]>;
}

/**
 * Puts messages saved by an earlier version (which kept queues in memory and saved them on a
 * clean stop) back. Jobs carry their own due time, so they go in without a delay and the delivery
 * engine waits (or hops) as it would have.
 */
async function restoreQueues(
  clients: AwsClients,
  resources: LocalResources,
  dataDir: string,
): Promise<number> {
  const file = join(dataDir, SAVED_QUEUES_FILE);
  let saved: SavedQueues;
  try {
    saved = JSON.parse(await readFile(file, 'utf8')) as SavedQueues;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new LocalStackError(
      `Could not read saved queue contents from ${file}: ${(error as Error).message}`,
    );
  }
  const urlByName = new Map<string, string>();
  for (const [key, queue] of Object.entries(QUEUES) as [QueueKey, (typeof QUEUES)[QueueKey]][]) {
    urlByName.set(queue.localName, resources.queueUrls[key]);
    urlByName.set(queue.redrive.localName, resources.redriveQueueUrls[key]);
  }
  let count = 0;
  for (const [name, bodies] of Object.entries(saved.queues)) {
    const url = urlByName.get(name);
    if (url === undefined) continue;
    try {
      await sendJobs(
        clients.sqs,
        url,
        bodies.map((body) => ({ body, delaySeconds: 0 })),
      );
    } catch (error) {
      throw new LocalStackError(
        `Could not put the saved messages of ${file} back into queue ${name} (${(error as Error).message}). The file is kept; fix or move it and start again.`,
      );
    }
    count += bodies.length;
  }
  // Only now is the file's content safe in the queues. Were this interrupted, the next start
  // restores it again: duplicates, never loss.
  await rm(file, { force: true });
  return count;
}

async function writeEndpoints(
  dataDir: string,
  apiUrl: string,
  endpoints: LocalEndpoints,
  adminToken: string,
  resources: LocalResources,
) {
  const file = join(dataDir, ENDPOINTS_FILE);
  const queues = {} as EndpointsFile['queues'];
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    queues[key] = { url: resources.queueUrls[key], redriveUrl: resources.redriveQueueUrls[key] };
  }
  const content: EndpointsFile = {
    api: apiUrl,
    sqs: endpoints.sqs,
    s3: endpoints.s3,
    dynamodb: endpoints.dynamodb,
    adminToken,
    queues,
  };
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}

/** Settings whose local default differs from the functions' default on AWS (`CONFIG_DEFAULTS`). */
export const LOCAL_CONFIG_DEFAULTS = {
  /** Publish reads the topic on every request, so admin calls answer at once. */
  topicCacheMs: 0,
  subscriptionCacheSeconds: 2,
  /** One process, one health tracker: its own verdicts are seen at once; `enable` waits this long. */
  healthCacheMs: 500,
  /**
   * One delivery engine serves every local invocation (on AWS each invocation has its own 32), so
   * it gets more request slots: one subscription may use a quarter of them.
   */
  deliveryConcurrency: 128,
} as const;

/**
 * The function settings the local stack derives from its options, as the environment variables
 * CDK sets on AWS (resource names and URLs are added once they exist). Options left out are left
 * out here too, so `readConfig` applies the same defaults as on AWS.
 */
export function localFunctionSettings(options: LocalStackOptions): Record<string, string> {
  const number = (key: string, value: number | undefined) =>
    value === undefined ? {} : { [key]: String(value) };
  return {
    ...number(ENV.timeScale, options.timeScale),
    [ENV.allowHttpEndpoints]: 'true',
    [ENV.validateEndpoints]: String(options.validateEndpoints ?? false),
    [ENV.blockPrivateEndpoints]: String(options.blockPrivateEndpoints ?? false),
    [ENV.topicCacheMs]: String(options.topicCacheMs ?? LOCAL_CONFIG_DEFAULTS.topicCacheMs),
    [ENV.subscriptionCacheSeconds]: String(
      options.subscriptionCacheSeconds ?? LOCAL_CONFIG_DEFAULTS.subscriptionCacheSeconds,
    ),
    [ENV.deliveryConcurrency]: String(
      options.deliveryConcurrency ?? LOCAL_CONFIG_DEFAULTS.deliveryConcurrency,
    ),
    [ENV.healthCacheMs]: String(LOCAL_CONFIG_DEFAULTS.healthCacheMs),
    ...number(ENV.historyRetentionDays, options.historyRetentionDays),
    ...(options.publicUrl === undefined ? {} : { [ENV.publicUrl]: options.publicUrl }),
  };
}

/**
 * The whole environment of the local functions: the settings plus the table, bucket, queues and
 * the data directory's sealing key.
 */
function localFunctionEnv(
  settings: Record<string, string>,
  resources: LocalResources,
  keys: { headerKey: string; topicKey: string },
): Record<string, string> {
  const env: Record<string, string> = {
    ...settings,
    [ENV.headerKey]: keys.headerKey,
    [ENV.topicKey]: keys.topicKey,
    [TABLE.nameEnv]: resources.tableName,
    [BUCKET.nameEnv]: resources.bucketName,
    [FAN_OUT_BUCKET.nameEnv]: resources.fanOutBucketName,
  };
  for (const key of Object.keys(QUEUES) as QueueKey[]) env[QUEUES[key].urlEnv] = resources.queueUrls[key];
  return env;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  const settings = localFunctionSettings(options);
  // Checked before anything starts, by the same reader the functions use.
  try {
    readConfig({ ...settings, [TABLE.nameEnv]: TABLE.localName });
  } catch (error) {
    throw new LocalStackError(`Invalid local stack setting: ${(error as Error).message}`);
  }
  await prepareDataDir(dataDir);
  const unlock = await lockDataDirOrExplain(dataDir);
  let emulators: Emulators;
  let adminToken: string;
  let sealingKeys: { headerKey: string; topicKey: string };
  try {
    await restrictDataDir(dataDir);
    adminToken = await loadAdminToken(dataDir, options.adminToken);
    sealingKeys = {
      headerKey: await loadSealingKey(dataDir, HEADER_KEY_FILE),
      topicKey: await loadSealingKey(dataDir, TOPIC_KEY_FILE),
    };
    emulators = await startEmulators({
      dataDir,
      host,
      onUnexpectedExit: (code, signal) =>
        (options.onFatal ?? ((error) => console.error(`gridwire: ${error.message}`)))(
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

  let gateway: Gateway | undefined;
  const ownUrl = () => {
    if (gateway === undefined) throw new Error('the local gateway is not listening yet');
    return gateway.url;
  };
  let admission: BacklogAdmission | undefined;
  const pollers: QueuePoller[] = [];
  // Stop order matters: no new requests, then no new invocations (waiting for those running),
  // then the emulators. Queues are on disk all along (the emulators write every change through),
  // so nothing needs saving; a `queues.json` left by an earlier version is put back at start.
  const stopAll = async () => {
    try {
      await gateway?.stop();
      admission?.stop();
      await Promise.all(pollers.map((poller) => poller.stop()));
    } finally {
      await emulators.stop();
      await unlock();
    }
  };
  try {
    const clients = createAwsClients(
      (await options.routeClients?.(emulators.endpoints)) ?? emulators.endpoints,
    );
    options.instrumentClients?.(clients);
    const resources = await provisionLocalResources(clients, {
      ...(options.visibilityTimeoutSeconds === undefined
        ? {}
        : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    });
    const restored = await restoreQueues(clients, resources, dataDir);
    await restoreBucket(clients.s3, resources.bucketName, dataDir);

    const config = readConfig(localFunctionEnv(settings, resources, sealingKeys));
    const runtime = {
      config,
      clients,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.random === undefined ? {} : { random: options.random }),
    };
    const metrics = new LocalMetrics();
    const startedAt = Date.now();
    const observability = (name: string) =>
      createObservability(name, { logLevel: options.logLevel ?? 'WARN', publishMetrics: metrics.publish });

    const publishObs = observability('publish');
    const managementObs = observability('management');
    const deliveryObs = observability('delivery');
    const handlers = {
      publish: createPublishHandler({
        publisher: buildPublisher(runtime, publishObs),
        observability: publishObs,
      }),
      management: createManagementHandler({
        // Without --public-url, the stack's own address, known once the gateway listens (before
        // any request can come in).
        management: buildManagementDeps(
          runtime,
          managementObs,
          config.publicUrl === undefined ? { publicUrl: () => ownUrl() } : {},
        ),
        observability: managementObs,
      }),
    };
    const realDeliveryHandler: SqsHandler = createDeliveryHandler({
      engine: buildDeliveryEngine(
        runtime,
        deliveryObs,
        options.sender === undefined ? {} : { sender: options.sender },
      ),
      observability: deliveryObs,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const deliveryHandler = options.wrapDeliveryHandler?.(realDeliveryHandler) ?? realDeliveryHandler;
    const deadLetterObs = observability('dead-letter');
    const consumers: Record<'delivery' | 'deadLetter', { handler: SqsHandler; logger: LoggerLike }> = {
      delivery: { handler: deliveryHandler, logger: deliveryObs.logger },
      deadLetter: {
        handler: createDeadLetterHandler({
          step: buildDeadLetterStep(runtime, deadLetterObs),
          observability: deadLetterObs,
        }),
        logger: deadLetterObs.logger,
      },
    };

    /** The delivery queue's poller: its finished jobs are the drain rate the admission gate reads. */
    let deliveryPoller: QueuePoller | undefined;
    for (const key of Object.keys(QUEUES) as QueueKey[]) {
      const consumer = QUEUES[key].consumer;
      const fnKey = consumer.function;
      if (fnKey !== 'delivery' && fnKey !== 'deadLetter') throw new Error(`no local consumer for ${fnKey}`);
      const url = resources.queueUrls[key];
      const { Attributes } = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
      );
      const poller = new QueuePoller({
        sqs: clients.sqs,
        queueUrl: url,
        queueArn: Attributes?.QueueArn ?? url,
        // One receive returns at most ten messages; Lambda's batching window is not emulated.
        batchSize: Math.min(consumer.batchSize, SQS_LIMITS.maxBatchEntries),
        receivers: options.pollersPerQueue ?? 2,
        maxConcurrency: Math.min(consumer.maxConcurrency, options.maxConcurrency ?? Number.POSITIVE_INFINITY),
        fn: FUNCTIONS[fnKey],
        fnKey,
        handler: consumers[fnKey].handler,
        logger: consumers[fnKey].logger,
        ...(options.onInvocation === undefined ? {} : { onInvocation: options.onInvocation }),
      });
      pollers.push(poller);
      if (key === 'delivery') deliveryPoller = poller;
    }

    try {
      admission =
        options.admission === false
          ? undefined
          : new BacklogAdmission({
              ...ADMISSION_DEFAULTS,
              ...options.admission,
              // Waiting and being worked on: the delivery workers take messages in as fast as they
              // have slots, so a backlog shows as messages in flight as much as waiting ones.
              backlog: async () => {
                const counts = await attributesOf(clients.sqs, resources.queueUrls.delivery);
                return (
                  (counts.ApproximateNumberOfMessages ?? 0) +
                  (counts.ApproximateNumberOfMessagesNotVisible ?? 0)
                );
              },
              ...(deliveryPoller === undefined ? {} : { drained: () => deliveryPoller.completed }),
              onError: (error) =>
                publishObs.logger.debug('could not read the delivery backlog', { error: error.message }),
            });
      admission?.start();
      gateway = await startGateway({
        host,
        port: options.port ?? 4000,
        adminToken,
        handlers: handlers as unknown as Record<'publish' | 'management', HttpHandler>,
        logger: managementObs.logger,
        ...(options.onInvocation === undefined ? {} : { onInvocation: options.onInvocation }),
        ...(admission === undefined ? {} : { admission }),
        localRoutes: {
          [`GET ${LOCAL_STATUS_PATH}`]: async () => ({
            status: 200,
            body: JSON.stringify(await localStatusDocument(startedAt, metrics, clients.sqs, resources)),
          }),
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new LocalStackError(
          `Port ${options.port ?? 4000} on ${host} is already in use. Stop what is using it, or choose another port with --port (or ${LOCAL_ENV.port}).`,
        );
      }
      throw error;
    }
    for (const poller of pollers) poller.start();

    await writeEndpoints(dataDir, gateway.url, emulators.endpoints, adminToken, resources);
    if (restored > 0) publishObs.logger.info('restored queued deliveries', { messages: restored });

    let stopping: Promise<void> | undefined;
    return {
      apiUrl: gateway.url,
      adminToken,
      dataDir,
      endpoints: emulators.endpoints,
      resources,
      config,
      clients,
      metrics,
      stop: () => {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
