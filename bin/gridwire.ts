#!/usr/bin/env -S npx tsx
/**
 * The gridwire command line: `gridwire start` runs the local stack.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { silenceNodeVersionNotice } from '../local/quiet-warnings';
import { LocalStackError, startLocalStack } from '../local/stack';
import { ENV } from '../shared/config/resources';

silenceNodeVersionNotice();

const integer = (name: string, min: number, max: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
  }
  return parsed;
};

const scale = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 1) throw new InvalidArgumentError('must be a number >= 1.');
  return parsed;
};

const program = new Command()
  .name('gridwire')
  .description('Gridwire: event delivery to webhooks with retries, on AWS or on this machine.');

program
  .command('start')
  .description('Run the whole pipeline locally (emulated SQS, DynamoDB and S3; no cloud account).')
  .addOption(
    new Option('--port <port>', 'API port')
      .env('GRIDWIRE_PORT')
      .default(4000)
      .argParser(integer('--port', 0, 65535)),
  )
  .addOption(new Option('--host <host>', 'interface to listen on').env('GRIDWIRE_HOST').default('127.0.0.1'))
  .addOption(
    new Option('--data-dir <dir>', 'where state, the admin token and endpoints.json live')
      .env('GRIDWIRE_DATA_DIR')
      .default('.gridwire'),
  )
  .addOption(
    new Option('--time-scale <n>', 'divide every delivery delay and TTL by n (demos, tests)')
      .env(ENV.timeScale)
      .default(1)
      .argParser(scale),
  )
  .addOption(
    new Option(
      '--admin-token <token>',
      'fixed admin token (default: generated once, kept in the data dir)',
    ).env('GRIDWIRE_ADMIN_TOKEN'),
  )
  .addOption(
    new Option('--log-level <level>', 'handler log level')
      .env('GRIDWIRE_LOG_LEVEL')
      .choices(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'])
      .default('WARN'),
  )
  .action(
    async (options: {
      port: number;
      host: string;
      dataDir: string;
      timeScale: number;
      adminToken?: string;
      logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
    }) => {
      let stack: Awaited<ReturnType<typeof startLocalStack>>;
      try {
        stack = await startLocalStack({
          port: options.port,
          host: options.host,
          dataDir: options.dataDir,
          timeScale: options.timeScale,
          logLevel: options.logLevel,
          ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
        });
      } catch (error) {
        if (error instanceof LocalStackError) {
          console.error(`gridwire: ${error.message}`);
          process.exit(1);
        }
        throw error;
      }
      const lines = [
        'Gridwire local stack is running.',
        `  API          ${stack.apiUrl}`,
        `  Admin token  ${stack.adminToken}`,
        `  Publish to   ${stack.apiUrl}/topics/<topic>/api/events  (header aeg-sas-key: <topic key>)`,
        `  Data dir     ${stack.dataDir}  (endpoints.json has the emulator endpoints)`,
        ...(options.timeScale === 1
          ? []
          : [`  Time scale   ${options.timeScale} (delays and TTLs divided by ${options.timeScale})`]),
        'Press Ctrl-C to stop.',
      ];
      console.log(lines.join('\n'));

      let stoppingSince: number | undefined;
      const shutdown = async (signal: string) => {
        // One Ctrl-C can arrive more than once (from the terminal and relayed by npm/tsx);
        // only a second press after a moment means "stop now".
        if (stoppingSince !== undefined) {
          if (Date.now() - stoppingSince < 2000) return;
          console.error('gridwire: stopping now without saving queued deliveries.');
          process.exit(130);
        }
        stoppingSince = Date.now();
        console.log(`\n${signal}: stopping (waiting for deliveries in progress)...`);
        await stack.stop();
        console.log('Gridwire local stack stopped; queued deliveries are saved for the next start.');
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
    },
  );

program
  .command('webhook')
  .description('Run a webhook that prints every delivery it receives (for trying Gridwire out).')
  .addOption(
    new Option('--port <port>', 'port to listen on').default(5050).argParser(integer('--port', 0, 65535)),
  )
  .addOption(new Option('--host <host>', 'interface to listen on').default('127.0.0.1'))
  .addOption(
    new Option('--status <code>', 'HTTP status to answer with (500 to watch retries, 400 to see a drop)')
      .default(200)
      .argParser(integer('--status', 100, 599)),
  )
  .action(async (options: { port: number; host: string; status: number }) => {
    const { startDemoWebhook } = await import('../local/demo-webhook');
    const url = await startDemoWebhook(options);
    console.log(`Webhook listening on ${url} (answering ${options.status}). Ctrl-C to stop.`);
  });

program.parseAsync(process.argv).catch((error: Error) => {
  console.error(`gridwire: ${error.stack ?? error.message}`);
  process.exit(1);
});
