/**
 * What `startLocalStack` takes (`local/stack.ts`, which exports it again for the package's
 * `gridwire/local`): in a module of its own, so the phases that read the options (`settings.ts`,
 * `functions.ts`, `event-sources.ts`, `http-api.ts`) need not import the stack that runs them.
 */
import type { DeliveryFunctionHandler } from '../functions/delivery';
import type { DeliveryBatchingWindow } from '../shared/config/event-source-mapping';
import type { WebhookSender } from '../shared/delivery/webhook-sender';
import type { ObservabilityOptions } from '../shared/lambda/wiring';
import type { AwsClients, LocalEndpoints } from '../shared/platform/aws';
import type { Clock, Random } from '../shared/platform/clock';
import type { AdmissionOptions } from './admission';
import type { GatewayOptions, HttpHandler } from './gateway';
import type { InvocationStats } from './lambda-context';
import type { LocalSourceSpec } from './source-spec';

export interface LocalStackOptions {
  /** Directory for DynamoDB files, the admin token, endpoints.json and saved queue contents. */
  dataDir: string;
  /** API port; 0 picks a free one. */
  port?: number;
  /**
   * Port of the publish function's URL, the second front door (publishing with keys, shaped as
   * function URL events); default the API port + 1, a free one when `port` is 0.
   */
  functionUrlPort?: number;
  host?: string;
  /**
   * The API's public URL, the base of validation URLs and topic endpoints (`--public-url`);
   * default: the stack's own address, `http://<host>:<port>`. Never taken from a request.
   */
  publicUrl?: string;
  /** Divides every delivery delay and TTL (demos and tests). */
  timeScale?: number;
  /**
   * Divides the real-time lengths around a webhook request (default 1: as on AWS): its 30 s
   * timeout (handshakes' too), the 3 minute late window its timeout is listened to for, and the
   * delivery function's timeout and margins they are planned within. For tests of late answers,
   * which would otherwise wait minutes; `timeScale` leaves all of these real. A `sender` given
   * here keeps its own timeout.
   */
  requestTimeScale?: number;
  /** Endpoints must pass the validation handshake before events are matched to them (default off). */
  validateEndpoints?: boolean;
  /** Refuse endpoint URLs aimed at loopback, private and other non-public addresses (default off). */
  blockPrivateEndpoints?: boolean;
  /** An HTTP proxy requests to endpoints tunnel through (`http://[user:pass@]host:port`); default direct. */
  egressProxyUrl?: string;
  /** Queues polled into topics (`--source`, `local/sources.ts`); default none. */
  sources?: LocalSourceSpec[];
  /** The AWS resources subscriptions may deliver to (ARN patterns); default any (`*`). */
  resourceDestinations?: string[];
  /** The S3 buckets subscriptions may name for their dead letters (bucket ARN patterns); default any (`*`). */
  deadLetterBuckets?: string[];
  /**
   * The origins that may show the portal in a frame, its CSP `frame-ancestors` (the construct's
   * `portalFrameAncestors` prop): https origins without a path, such as `https://app.example.com`
   * or `https://*.example.com`. Default none: no site may frame the portal. The console is never
   * framed.
   */
  portalFrameAncestors?: string[];
  /**
   * The portal's look (the construct's `portalBranding` prop): a title of 1 to 80 characters, an
   * https logo URL and an accent colour as `#rrggbb`, each optional. Default Gridwire's own.
   */
  portalBranding?: { title?: string; logoUrl?: string; accentColor?: string };
  /**
   * Local Lambda functions for `AwsLambdaFunction` destinations, by name: modules exporting
   * `handler` (`local/lambda-functions.ts`). None: such destinations are refused.
   */
  lambdaFunctions?: Record<string, string>;
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
  /**
   * Whether events are kept in subscriptions' backlogs while their endpoint is unhealthy or their
   * wait is long (default on, as on AWS); off, they hop on the retry queue.
   */
  backlog?: boolean;
  /** Waits longer than this many seconds (before the time scale) are kept in the backlog (default 1,200). */
  backlogAfterSeconds?: number;
  /**
   * Metrics per subscription (default on locally: in-memory series cost nothing and
   * `gridwire status` shows them), or per topic in their place, as the construct's default.
   */
  subscriptionMetrics?: boolean;
  /** Days failed-attempt history is kept (default as on AWS; dynalite never expires items). */
  historyRetentionDays?: number;
  /**
   * Pollers (receive loops) each queue starts with, and the fewest it shrinks back to when idle
   * (default 5, as Lambda's event source mappings). More are added while receives come back full,
   * up to the queue's maximum concurrency (`local/poller.ts`). A poller waits for its invocation,
   * but hands a slow one off after a moment and receives again, so invocations in flight may
   * outnumber pollers.
   */
  pollersPerQueue?: number;
  /**
   * Seconds each poller's receive waits for messages, inside a batching window too (SQS long
   * polling, 0 to 20; default 2, so a stop is quick). Lambda's pollers wait 20 s, which is what
   * holds a batch on a quiet queue past a shorter window; 20 here shows that.
   */
  receiveWaitSeconds?: number;
  /**
   * The delivery queue's batching window and the batch size it allows, emulated as Lambda's event
   * source mapping does (the construct's `deliveryBatchingWindow` prop, with the same default and
   * limits): `seconds` an integer from 0 to 300, `batchSize` 1 to 10 without a window and 1 to 100
   * with one (default 10). Default `{ seconds: 0, batchSize: 10 }`: each receive's messages at
   * once. With a window, receives inside it long-poll for `receiveWaitSeconds` (2 s here, 20 s on
   * AWS), so a quiet queue holds a batch past a shorter window until one returns.
   */
  deliveryBatchingWindow?: DeliveryBatchingWindow;
  /**
   * Whether the backlog and ended-delivery queues' pollers gather messages over the windows they
   * have on AWS (60 s and 300 s, batches of up to 10,000 and 100); default off: events reach a
   * backlog and dead letters are written without those delays, ten messages per invocation at most.
   */
  emulateAllBatchingWindows?: boolean;
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
  /** Called with every request the API's routes took and its answer (`GatewayOptions.onExchange`). */
  onExchange?: GatewayOptions['onExchange'];
  /** Called once the AWS SDK clients exist, before anything uses them (e.g. to count requests). */
  instrumentClients?: (clients: AwsClients) => void;
  /**
   * Where the stack's AWS clients reach the emulators, given where the emulators listen (tests
   * put a fault-injecting proxy in between). `endpoints.json` keeps the emulators' own endpoints.
   */
  routeClients?: (endpoints: LocalEndpoints) => LocalEndpoints | Promise<LocalEndpoints>;
  /** Called if the stack breaks while running (the emulator process died). Default: print it. */
  onFatal?: (error: Error) => void;
  /** Wraps the delivery handler the pollers and the sweeper invoke (fault injection in tests). */
  wrapDeliveryHandler?: (handler: DeliveryFunctionHandler) => DeliveryFunctionHandler;
  /** Wraps the publish handler both front doors invoke (the benchmark runs it in a process of its own). */
  wrapPublishHandler?: (handler: HttpHandler) => HttpHandler;
}
