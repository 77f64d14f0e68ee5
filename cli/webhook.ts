/** `gridwire webhook`: a webhook that prints every delivery it receives. */
import { Command, Option } from 'commander';
import { CliError } from './errors';
import { integer } from './options';

export function webhookCommand(): Command {
  return new Command('webhook')
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
    .option('--verbose', "print each request's headers and body too")
    .action(async (options: { port: number; host: string; status: number; verbose?: boolean }) => {
      // Loaded here (a `require`, as in `start`) so the other commands don't pay for it.
      const { startDemoWebhook } = require('../local/demo-webhook') as typeof import('../local/demo-webhook');
      let url: string;
      try {
        ({ url } = await startDemoWebhook(options));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') {
          throw new CliError(
            `port ${options.port} on ${options.host} is already in use; pick another with --port`,
          );
        }
        if (code === 'EADDRNOTAVAIL' || code === 'EACCES') {
          throw new CliError(`can't listen on ${options.host}:${options.port} (${code})`);
        }
        throw error;
      }
      console.log(`Webhook listening on ${url} (answering ${options.status}). Ctrl-C to stop.`);
    });
}
