/** `gridwire start`: the whole pipeline on this machine. */
import { Command, Option } from 'commander';
import type { LocalStack } from '../local/stack';
import { ENV, LOCAL_ENV } from '../shared/config/resources';
import { CliError } from './errors';
import { atLeastOne, dataDirOption, flag, integer } from './options';

interface StartOptions {
  port: number;
  host: string;
  dataDir: string;
  timeScale: number;
  validateEndpoints: boolean;
  blockPrivateEndpoints: boolean;
  adminToken?: string;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
}

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
    .addOption(new Option('--host <host>', 'interface to listen on').env(LOCAL_ENV.host).default('127.0.0.1'))
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
        '--admin-token <token>',
        'fixed admin token (default: generated once, kept in the data dir)',
      ).env(LOCAL_ENV.adminToken),
    )
    .addOption(
      new Option('--log-level <level>', 'handler log level')
        .env(LOCAL_ENV.logLevel)
        .choices(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'])
        .default('WARN'),
    )
    .action(runStart);
}

async function runStart(options: StartOptions): Promise<void> {
  // Loaded here so the other commands don't pay for the handlers and emulators.
  const { LocalStackError, startLocalStack } = await import('../local/stack');
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      port: options.port,
      host: options.host,
      dataDir: options.dataDir,
      timeScale: options.timeScale,
      validateEndpoints: options.validateEndpoints,
      blockPrivateEndpoints: options.blockPrivateEndpoints,
      logLevel: options.logLevel,
      ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
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
  const lines = [
    'Gridwire local stack is running.',
    `  API          ${stack.apiUrl}`,
    `  Admin token  ${stack.adminToken}`,
    `  Publish to   ${stack.apiUrl}/topics/<topic>/api/events  (header aeg-sas-key: <topic key>)`,
    `  Data dir     ${stack.dataDir}  (endpoints.json has the emulator and queue endpoints)`,
    ...(options.timeScale === 1
      ? []
      : [`  Time scale   ${options.timeScale} (delays and TTLs divided by ${options.timeScale})`]),
    ...(options.validateEndpoints ? ['  Endpoints    must pass the validation handshake'] : []),
    ...(options.blockPrivateEndpoints ? ['  Endpoints    non-public addresses refused'] : []),
    'Press Ctrl-C to stop.',
  ];
  console.log(lines.join('\n'));

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
