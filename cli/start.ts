/** `gridwire start`: the whole pipeline on this machine. */
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option, type OptionValueSource } from 'commander';
import { consoleUrl } from '../local/console';
import { parseLambdaArgument } from '../local/lambda-functions';
import { releaseMemoryWhenQuiet } from '../local/memory-release';
import { type LocalSourceSpec, parseSourceArgument } from '../local/source-spec';
import type { LocalStack } from '../local/stack';
import { checkProxyUrl } from '../shared/config/egress';
import {
  DELIVERY_BATCHING_DEFAULTS,
  deliveryBatchingProblems,
  LAMBDA_SQS_LIMITS,
  MAX_DELIVERY_BATCH_SIZE,
} from '../shared/config/event-source-mapping';
import { type PortalBranding, parseFrameAncestors, parsePortalBranding } from '../shared/config/portal';
import { ENV, LOCAL_ENV } from '../shared/config/resources';
import { SESSION_MINUTES } from '../shared/sessions/scope';
import { type ApiTarget, bearerTarget } from './admin-api';
import { CliError } from './errors';
import { atLeastOne, dataDirOption, flag, integer } from './options';
import { createSession } from './sessions';

interface StartOptions {
  port: number;
  functionUrlPort?: number;
  host: string;
  publicUrl?: string;
  dataDir: string;
  timeScale: number;
  validateEndpoints: boolean;
  blockPrivateEndpoints: boolean;
  /** `--egress-proxy`: the HTTP proxy requests to endpoints tunnel through. */
  egressProxy?: string;
  /** `--source` (repeatable): queues polled into topics. */
  source?: LocalSourceSpec[];
  /** `--portal-frame-ancestors`: the origins that may frame the portal. */
  portalFrameAncestors?: string[];
  /** `--portal-branding`: the portal's title, logo and accent colour. */
  portalBranding?: PortalBranding;
  /** `--lambda name=module` (repeatable): local functions for Lambda destinations. */
  lambda?: Record<string, string>;
  adminToken?: string;
  adminTokenFile?: string;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** `--delivery-batching-window`: seconds the delivery queue's poller gathers messages. */
  deliveryBatchingWindow: number;
  /** `--delivery-batch-size`: messages per delivery invocation at most. */
  deliveryBatchSize: number;
}

/** A proxy URL as printed: its password left out. */
const redactedProxy = (proxyUrl: string): string => {
  const url = new URL(proxyUrl);
  if (url.password !== '') url.password = '***';
  return url.href.replace(/\/$/, '');
};

/** The exit code of a stack that stopped because it broke (its emulator process died). */
export const FATAL_EXIT_CODE = 1;

export function startCommand(): Command {
  return new Command('start')
    .description('Run the whole pipeline locally (emulated SQS, DynamoDB and S3; no cloud account).')
    .addOption(
      new Option('--port <port>', 'API port')
        .env(LOCAL_ENV.port)
        .default(4000)
        .argParser(integer('--port', 0, 65535)),
    )
    .addOption(
      new Option(
        '--function-url-port <port>',
        'port of the publish function URL (publishing only, as a Lambda function URL); default the API port + 1',
      )
        .env(LOCAL_ENV.functionUrlPort)
        .argParser(integer('--function-url-port', 0, 65535)),
    )
    .addOption(new Option('--host <host>', 'interface to listen on').env(LOCAL_ENV.host).default('127.0.0.1'))
    .addOption(
      new Option(
        '--public-url <url>',
        'the API URL receivers are given (validation URLs, topic endpoints); default http://<host>:<port>',
      ).env(ENV.publicUrl),
    )
    .addOption(dataDirOption('where state, the admin token and endpoints.json live'))
    .addOption(
      new Option('--time-scale <n>', 'divide every delivery delay and TTL by n (demos, tests)')
        .env(ENV.timeScale)
        .default(1)
        .argParser(atLeastOne),
    )
    .addOption(
      new Option(
        '--validate-endpoints [on]',
        'send the validation handshake to new endpoints; events reach them only once they agree',
      )
        .env(ENV.validateEndpoints)
        .default(false)
        .preset(true)
        .argParser(flag),
    )
    .option(
      '--lambda <name=module>',
      'a local function for AwsLambdaFunction destinations: a module exporting handler, invoked with each batch (repeatable)',
      (value: string, previous: Record<string, string> | undefined) => {
        try {
          return parseLambdaArgument(value, previous);
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message);
        }
      },
    )
    .addOption(
      new Option(
        '--block-private-endpoints [on]',
        'refuse endpoint URLs aimed at loopback, private or other non-public addresses (as on AWS)',
      )
        .env(ENV.blockPrivateEndpoints)
        .default(false)
        .preset(true)
        .argParser(flag),
    )
    .addOption(
      new Option(
        '--egress-proxy <url>',
        'send requests to endpoints through this HTTP proxy (http://[user:pass@]host:port; CONNECT tunnels, the private-endpoint check still made)',
      )
        .env(ENV.egressProxyUrl)
        .argParser((value: string) => {
          try {
            checkProxyUrl('--egress-proxy', value);
          } catch (error) {
            throw new InvalidArgumentError((error as Error).message.replace(/^--egress-proxy: /, ''));
          }
          return value;
        }),
    )
    .addOption(
      new Option(
        '--source <source>',
        "poll a queue into a topic: sqs:<queue>=<topic> (its messages events in the topic's schema; :eventBridge when they are EventBridge events), or eventbridge:<name>=<topic> (events POSTed to /local/eventbridge/<name>, as a rule on a bus would send them); a missing queue is created with a dead-letter queue; repeatable",
      ).argParser((value: string, previous: LocalSourceSpec[] | undefined) => {
        try {
          return [...(previous ?? []), parseSourceArgument(value)];
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message);
        }
      }),
    )
    .addOption(
      new Option(
        '--portal-frame-ancestors <origins...>',
        'https origins whose pages may show the portal in a frame (none by default), space- or comma-separated, e.g. https://app.example.com',
      )
        .env(ENV.portalFrameAncestors)
        .argParser(frameAncestorsArgument),
    )
    .addOption(
      new Option(
        '--portal-branding <json>',
        `the portal's look as JSON, each field optional: {"title":"Acme events","logoUrl":"https://cdn.example.com/logo.svg","accentColor":"#0a7cff"}`,
      )
        .env(ENV.portalBranding)
        .argParser(portalBrandingArgument),
    )
    .addOption(
      new Option(
        '--admin-token <token>',
        'fixed admin token (default: generated once, kept in the data dir); on the command line it shows in ps, prefer the variable or --admin-token-file',
      ).env(LOCAL_ENV.adminToken),
    )
    .addOption(
      new Option('--admin-token-file <path>', 'read the fixed admin token from this file').env(
        LOCAL_ENV.adminTokenFile,
      ),
    )
    .addOption(
      new Option('--log-level <level>', 'handler log level')
        .env(LOCAL_ENV.logLevel)
        .choices(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'])
        .default('WARN'),
    )
    .addOption(
      new Option(
        '--delivery-batching-window <seconds>',
        "seconds the delivery queue's poller gathers messages before it invokes, as Lambda's batching window (0 to 300; 0 invokes at once)",
      )
        .env(LOCAL_ENV.deliveryBatchingWindow)
        .default(DELIVERY_BATCHING_DEFAULTS.seconds)
        .argParser(integer('--delivery-batching-window', 0, LAMBDA_SQS_LIMITS.maxBatchingWindowSeconds)),
    )
    .addOption(
      new Option(
        '--delivery-batch-size <n>',
        `messages per delivery invocation at most (1 to ${LAMBDA_SQS_LIMITS.maxBatchSizeWithoutWindow} without a window, 1 to ${MAX_DELIVERY_BATCH_SIZE} with one)`,
      )
        .env(LOCAL_ENV.deliveryBatchSize)
        .default(DELIVERY_BATCHING_DEFAULTS.batchSize)
        .argParser(integer('--delivery-batch-size', 1, MAX_DELIVERY_BATCH_SIZE)),
    )
    .action(async (options: StartOptions, command: Command) => {
      checkDeliveryBatching(options);
      const adminToken = await resolveAdminToken(
        options,
        (key) => command.getOptionValueSource(key),
        (line) => console.error(line),
      );
      await runStart(options, adminToken);
    });
}

/** The flags checked together by the rule the construct's prop and the local option follow. */
export function checkDeliveryBatching(
  options: Pick<StartOptions, 'deliveryBatchingWindow' | 'deliveryBatchSize'>,
): void {
  const problems = deliveryBatchingProblems(
    { seconds: options.deliveryBatchingWindow, batchSize: options.deliveryBatchSize },
    { seconds: '--delivery-batching-window', batchSize: '--delivery-batch-size' },
  );
  if (problems.length > 0) throw new CliError(problems.join('; '));
}

/**
 * `--portal-frame-ancestors`: each value one origin or several separated by spaces or commas,
 * accumulated over the flag's words (and read so from its variable); each checked as the
 * management function checks them. An empty value adds none.
 */
export function frameAncestorsArgument(value: string, previous: string[] | undefined): string[] {
  const origins = [...(previous ?? []), ...value.split(/[\s,]+/).filter((origin) => origin !== '')];
  try {
    return parseFrameAncestors(origins, '--portal-frame-ancestors');
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}.`);
  }
}

/** `--portal-branding`: JSON checked as the management function checks it, the field and limit named. */
export function portalBrandingArgument(value: string): PortalBranding {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError(
      '--portal-branding must be a JSON object such as {"title":"Acme events","accentColor":"#0a7cff"}.',
    );
  }
  try {
    return parsePortalBranding(parsed, '--portal-branding');
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}.`);
  }
}

/** Longest admin token read from a file (the header carrying it stays well under any limit). */
const MAX_ADMIN_TOKEN_LENGTH = 1024;

/**
 * The fixed admin token, if one is given: `--admin-token` or its variable (`LOCAL_ENV.adminToken`), or the
 * content of `--admin-token-file` or its variable (`LOCAL_ENV.adminTokenFile`). One on the command line wins
 * over one from the environment; two from the same place are refused. A token on the command line
 * is visible to every user of the machine (`ps`), which `warn` says.
 */
export async function resolveAdminToken(
  options: Pick<StartOptions, 'adminToken' | 'adminTokenFile'>,
  sourceOf: (key: 'adminToken' | 'adminTokenFile') => OptionValueSource | undefined,
  warn: (line: string) => void,
  read: (path: string) => Promise<string> = (path) => readFile(path, 'utf8'),
): Promise<string | undefined> {
  const { adminToken, adminTokenFile } = options;
  const tokenOnCommandLine = adminToken !== undefined && sourceOf('adminToken') === 'cli';
  const fileOnCommandLine = adminTokenFile !== undefined && sourceOf('adminTokenFile') === 'cli';
  if (adminToken !== undefined && adminTokenFile !== undefined && tokenOnCommandLine === fileOnCommandLine) {
    throw new CliError(
      tokenOnCommandLine
        ? '--admin-token and --admin-token-file both given; give one'
        : `${LOCAL_ENV.adminToken} and ${LOCAL_ENV.adminTokenFile} both set; set one`,
    );
  }
  if (adminTokenFile !== undefined && (adminToken === undefined || fileOnCommandLine)) {
    return readAdminTokenFile(adminTokenFile, read);
  }
  if (tokenOnCommandLine) {
    warn(
      `gridwire: warning: the admin token given with --admin-token is visible to every user of this machine (ps); use --admin-token-file or ${LOCAL_ENV.adminToken} instead.`,
    );
  }
  return adminToken;
}

async function readAdminTokenFile(path: string, read: (path: string) => Promise<string>): Promise<string> {
  let content: string;
  try {
    content = await read(path);
  } catch (error) {
    throw new CliError(
      `could not read the admin token file ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const token = content.trim();
  if (token === '') throw new CliError(`the admin token file ${path} is empty`);
  // Sent in a header: visible ASCII only.
  if (!/^[!-~]+$/.test(token)) {
    throw new CliError(
      `the admin token file ${path} must hold the token alone on one line, in visible ASCII characters without spaces`,
    );
  }
  if (token.length > MAX_ADMIN_TOKEN_LENGTH) {
    throw new CliError(
      `the admin token in ${path} is ${token.length} characters long; the limit is ${MAX_ADMIN_TOKEN_LENGTH}`,
    );
  }
  return token;
}

/** How long the console link `gridwire start` prints works: the longest a session may last. */
export const START_CONSOLE_MINUTES = SESSION_MINUTES.max;

/**
 * The console lines `gridwire start` prints: a link with an operator session made on the stack
 * just started (`POST /admin/sessions`, with its admin token), and until when it works. The
 * token is in the fragment, which the browser keeps to itself. A session the stack would not
 * make is a line saying why; the stack runs on.
 */
export async function startConsoleLines(target: ApiTarget): Promise<string[]> {
  try {
    const session = await createSession(
      target,
      { role: 'operator' },
      START_CONSOLE_MINUTES,
      'making a console link',
    );
    return [
      `  Console      ${consoleUrl(target.url, session.token)}`,
      `               (works until ${session.expiresAt}; gridwire console makes a new link)`,
    ];
  } catch (error) {
    return [`  Console      no link: ${(error as Error).message}  (gridwire console makes one)`];
  }
}

async function runStart(options: StartOptions, adminToken: string | undefined): Promise<void> {
  // Loaded here so the other commands don't pay for the handlers and emulators. A `require`, not
  // `import()`: the package is CommonJS, where `import()` of a relative path needs its extension.
  const { LocalStackError, startLocalStack } = require('../local/stack') as typeof import('../local/stack');
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      port: options.port,
      ...(options.functionUrlPort === undefined ? {} : { functionUrlPort: options.functionUrlPort }),
      host: options.host,
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      dataDir: options.dataDir,
      timeScale: options.timeScale,
      validateEndpoints: options.validateEndpoints,
      blockPrivateEndpoints: options.blockPrivateEndpoints,
      ...(options.egressProxy === undefined ? {} : { egressProxyUrl: options.egressProxy }),
      ...(options.source === undefined ? {} : { sources: options.source }),
      ...(options.lambda === undefined ? {} : { lambdaFunctions: options.lambda }),
      ...(options.portalFrameAncestors === undefined
        ? {}
        : { portalFrameAncestors: options.portalFrameAncestors }),
      ...(options.portalBranding === undefined ? {} : { portalBranding: options.portalBranding }),
      logLevel: options.logLevel,
      deliveryBatchingWindow: {
        seconds: options.deliveryBatchingWindow,
        batchSize: options.deliveryBatchSize,
      },
      ...(adminToken === undefined ? {} : { adminToken }),
      // The emulators died (killed, crashed): nothing can be served or delivered any more, so
      // the stack leaves at once and says so. What it accepted is on disk; a restart delivers it.
      onFatal: (error) => {
        console.error(
          `gridwire: ${error.message}.\nNothing accepted is lost: run gridwire start again with the same data directory (${options.dataDir}) to deliver it.`,
        );
        process.exit(FATAL_EXIT_CODE);
      },
    });
  } catch (error) {
    if (error instanceof LocalStackError) throw new CliError(error.message);
    throw error;
  }
  const framers = options.portalFrameAncestors ?? [];
  const lines = [
    'Gridwire local stack is running.',
    `  API          ${stack.apiUrl}`,
    ...(options.publicUrl === undefined ? [] : [`  Public URL   ${options.publicUrl}`]),
    `  Admin token  ${stack.adminToken}`,
    ...(await startConsoleLines(bearerTarget(stack.apiUrl, stack.adminToken, 'the local stack'))),
    `  Publish to   ${stack.apiUrl}/topics/<topic>/api/events  (header aeg-sas-key: <topic key>)`,
    `  Function URL ${stack.functionUrl}  (publishing only, same paths: ${stack.functionUrl}/topics/<topic>/api/events)`,
    `  Data dir     ${stack.dataDir}  (endpoints.json has the emulator and queue endpoints)`,
    ...(options.timeScale === 1
      ? []
      : [`  Time scale   ${options.timeScale} (delays and TTLs divided by ${options.timeScale})`]),
    ...(options.validateEndpoints ? ['  Endpoints    must pass the validation handshake'] : []),
    ...(options.blockPrivateEndpoints ? ['  Endpoints    non-public addresses refused'] : []),
    ...(options.egressProxy === undefined ? [] : [`  Egress proxy ${redactedProxy(options.egressProxy)}`]),
    ...(options.source ?? []).map((source) =>
      source.kind === 'sqs'
        ? `  Source       queue ${source.name} -> topic ${source.topic}${source.format === 'eventBridge' ? ' (EventBridge events)' : ''}`
        : `  Source       POST ${stack.apiUrl}/local/eventbridge/${source.name} -> topic ${source.topic}`,
    ),
    ...(framers.length > 0 ? [`  Portal       may be framed by ${framers.join(' ')}`] : []),
    'Press Ctrl-C to stop.',
  ];
  console.log(lines.join('\n'));
  // This process is the stack's alone: what a load left behind goes back to the system once it
  // stops (local/memory-release.ts).
  const releaser = releaseMemoryWhenQuiet();

  let stoppingSince: number | undefined;
  const shutdown = async (signal: string) => {
    // One Ctrl-C can arrive more than once (from the terminal and relayed by npm/tsx);
    // only a second press after a moment means "stop now".
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < 2000) return;
      console.error('gridwire: stopping now; queued deliveries continue at the next start.');
      process.exit(130);
    }
    stoppingSince = Date.now();
    releaser.stop();
    console.log(`\n${signal}: stopping (waiting for deliveries in progress)...`);
    await stack.stop();
    console.log('Gridwire local stack stopped; queued deliveries continue at the next start.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // The terminal was closed: stop as for Ctrl-C (the queues are on disk either way).
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
}
