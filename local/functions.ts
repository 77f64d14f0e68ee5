/**
 * The local stack's functions: the same handlers as on AWS, built by the same wiring from one
 * configuration, with their metrics summed in memory (`metrics.ts`) instead of written as EMF.
 */
import { createDeadLetterHandler, type DeadLetterFunctionHandler } from '../functions/dead-letter';
import {
  createDeliveryHandler,
  type DeliveryFunctionHandler,
  INVOCATION_TIMES,
  type InvocationTimes,
} from '../functions/delivery';
import { createManagementHandler } from '../functions/management';
import { buildPublishHandlers } from '../functions/publish';
import { archiveForwarding } from '../shared/archive/forward';
import type { RuntimeConfig } from '../shared/config/runtime';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import {
  buildArchiveSweep,
  buildArchiveWriter,
  buildDeadLetterStep,
} from '../shared/lambda/wiring/dead-letter';
import { buildDeliveryWorker } from '../shared/lambda/wiring/delivery';
import { buildManagementDeps } from '../shared/lambda/wiring/management';
import { createObservability } from '../shared/lambda/wiring/observability';
import { queueOf } from '../shared/lambda/wiring/runtime';
import type { LoggerLike } from '../shared/observability/logging';
import type { AwsClients } from '../shared/platform/aws';
import { asFunction } from './current-function';
import type { HttpHandler } from './gateway';
import { shortenedContext } from './lambda-context';
import type { LocalMetrics } from './metrics';
import type { SqsHandler } from './poller';
import { LocalStackError } from './stack-error';
import type { LocalStackOptions } from './stack-options';

/** The function of a queue consumer in the local stack, with the logger its poller reports to. */
export interface LocalConsumer {
  handler: SqsHandler;
  logger: LoggerLike;
}

export interface LocalFunctions {
  /** The HTTP API's handlers. */
  http: Record<'publish' | 'management', HttpHandler>;
  /** The queue consumers, by function (`consumer.function` of `QUEUES`). */
  consumers: Record<'delivery' | 'deadLetter', LocalConsumer>;
  /** The publish function as the consumer of the sources' queues (`--source`). */
  sources: LocalConsumer;
  /** The delivery function's handler, also for the scheduled backlog sweep. */
  delivery: DeliveryFunctionHandler;
  /** The dead-letter function's handler, also for the scheduled archive sweep. */
  deadLetter: DeadLetterFunctionHandler;
  /** Ends the delivery engine's late listens at once (the stack is stopping). */
  stopListening: () => void;
  /** The publish function's logger: what the stack notes about publishing goes there. */
  publishLogger: LoggerLike;
  /** The management function's logger: the gateway reports there. */
  managementLogger: LoggerLike;
}

export interface LocalFunctionsInput {
  config: RuntimeConfig;
  clients: AwsClients;
  metrics: LocalMetrics;
  /**
   * The stack's own address, known once the gateway listens (before any request can come in):
   * the public URL when `--public-url` is not given.
   */
  ownUrl: () => string;
  options: Pick<
    LocalStackOptions,
    | 'clock'
    | 'random'
    | 'sender'
    | 'logLevel'
    | 'wrapDeliveryHandler'
    | 'wrapPublishHandler'
    | 'requestTimeScale'
  >;
}

/**
 * Builds the publish, management, delivery and dead-letter handlers, each invocation run as its
 * function (`current-function.ts`), whoever invokes it: the gateway, the function URL, a poller
 * or the sweeper.
 */
export function buildLocalFunctions({
  config,
  clients,
  metrics,
  ownUrl,
  options,
}: LocalFunctionsInput): LocalFunctions {
  const runtime = {
    config,
    clients,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.random === undefined ? {} : { random: options.random }),
  };
  const observability = (name: string) =>
    createObservability(name, {
      logLevel: options.logLevel ?? 'WARN',
      publishMetrics: metrics.publish,
      subscriptionMetrics: config.subscriptionMetrics,
      metricsFlushSeconds: config.metricsFlushSeconds,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });

  const publishObs = observability('publish');
  const managementObs = observability('management');
  const deliveryObs = observability('delivery');
  // Its backlog gate stays off (no `deliveryBacklogLimit` locally): the stack's gate refuses first.
  const publishHandlers = buildPublishHandlers(runtime, publishObs);
  const realPublishHandler: HttpHandler = publishHandlers.http;
  const handlers = {
    publish: asFunction('publish', options.wrapPublishHandler?.(realPublishHandler) ?? realPublishHandler),
    management: asFunction(
      'management',
      createManagementHandler({
        management: buildManagementDeps(
          runtime,
          managementObs,
          config.publicUrl === undefined ? { publicUrl: () => ownUrl() } : {},
        ),
        observability: managementObs,
      }),
    ),
  };
  // Request timings as on AWS, or all shrunk together (`requestTimeScale`): the sender's timeout,
  // the late window, and the delivery function's timeout and margins they are planned within.
  const requestScale = options.requestTimeScale ?? 1;
  if (!(requestScale >= 1)) {
    throw new LocalStackError(
      `Invalid local stack setting: requestTimeScale must be a number >= 1 (got ${requestScale})`,
    );
  }
  const times: InvocationTimes = {
    lateWindowMs: INVOCATION_TIMES.lateWindowMs / requestScale,
    finishingMarginMs: INVOCATION_TIMES.finishingMarginMs / requestScale,
    answerMarginMs: INVOCATION_TIMES.answerMarginMs / requestScale,
  };
  const requestTimes =
    requestScale === 1
      ? undefined
      : { timeoutMs: DELIVERY_TIMEOUT_MS / requestScale, lateWindowMs: times.lateWindowMs };
  const deliveryWorker = buildDeliveryWorker(runtime, deliveryObs, {
    ...(options.sender === undefined ? {} : { sender: options.sender }),
    ...(requestTimes === undefined ? {} : { requestTimes }),
  });
  const createdDeliveryHandler: DeliveryFunctionHandler = createDeliveryHandler({
    worker: deliveryWorker,
    observability: deliveryObs,
    archive: archiveForwarding(queueOf(runtime, ['archive'])),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(requestScale === 1 ? {} : { times }),
  });
  const realDeliveryHandler: DeliveryFunctionHandler =
    requestScale === 1
      ? createdDeliveryHandler
      : (event, context) => createdDeliveryHandler(event, shortenedContext(context, requestScale));
  const deliveryHandler = asFunction(
    'delivery',
    options.wrapDeliveryHandler?.(realDeliveryHandler) ?? realDeliveryHandler,
  );
  const deadLetterObs = observability('dead-letter');
  const deadLetterHandler = asFunction(
    'deadLetter',
    createDeadLetterHandler({
      step: buildDeadLetterStep(runtime, deadLetterObs),
      archive: buildArchiveWriter(runtime, deadLetterObs),
      sweepArchives: buildArchiveSweep(runtime),
      observability: deadLetterObs,
    }),
  );
  return {
    http: handlers as unknown as Record<'publish' | 'management', HttpHandler>,
    consumers: {
      delivery: { handler: deliveryHandler, logger: deliveryObs.logger },
      deadLetter: {
        handler: deadLetterHandler,
        logger: deadLetterObs.logger,
      },
    },
    sources: { handler: asFunction('publish', publishHandlers.sources), logger: publishObs.logger },
    delivery: deliveryHandler,
    deadLetter: deadLetterHandler,
    stopListening: () => deliveryWorker.stopListening(),
    publishLogger: publishObs.logger,
    managementLogger: managementObs.logger,
  };
}
