/**
 * Child process that hosts the emulators (fauxqs for SQS and S3, dynalite for DynamoDB), so they
 * run beside the handlers on their own core. Talks to its parent over the IPC channel:
 * `ready` with the ports once listening, `inspect` requests for queue contents, `stop`.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { LOCAL_ENV } from '../shared/config/resources';

export interface EmulatorHostOptions {
  host: string;
  dataDir?: string;
  sqsPort: number;
  dynamodbPort: number;
}

export type HostRequest = { type: 'inspect'; id: number; queue: string } | { type: 'stop' };
export type HostMessage =
  | { type: 'ready'; sqsPort: number; dynamodbPort: number }
  | { type: 'failed'; message: string }
  | { type: 'inspect'; id: number; bodies: string[] | null };

async function main(): Promise<void> {
  const send = (message: HostMessage) => process.send?.(message);
  const options = JSON.parse(process.env[LOCAL_ENV.emulatorOptions] ?? '{}') as EmulatorHostOptions;
  const { startFauxqs } = await import('fauxqs');
  const fauxqs = await startFauxqs({ port: options.sqsPort, host: options.host, logger: false });
  const dynamo = dynalite({
    ...(options.dataDir === undefined ? {} : { path: join(options.dataDir, 'dynamodb') }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      dynamo.once('error', reject);
      dynamo.listen(options.dynamodbPort, options.host, () => resolve());
    });
  } catch (error) {
    await fauxqs.stop();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      dynamo.closeAllConnections();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
      await fauxqs.stop();
    })();
    return stopping;
  };
  process.on('message', (request: HostRequest) => {
    if (request.type === 'inspect') {
      const state = fauxqs.inspectQueue(request.queue);
      const bodies =
        state === undefined
          ? null
          : [
              ...state.messages.ready.map((message) => message.body),
              ...state.messages.delayed.map((message) => message.body),
              ...state.messages.inflight.map((entry) => entry.message.body),
            ];
      send({ type: 'inspect', id: request.id, bodies });
    } else if (request.type === 'stop') {
      void stop().then(() => process.exit(0));
    }
  });
  // Ctrl-C reaches the whole process group; the parent decides when the emulators stop (after it
  // has saved what is still queued).
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  // The parent went away without stopping us: close the database cleanly and leave.
  process.on('disconnect', () => void stop().then(() => process.exit(0)));
  send({ type: 'ready', sqsPort: fauxqs.port, dynamodbPort: (dynamo.address() as AddressInfo).port });
}

// dynalite reports some failures (a database it cannot open) from callbacks; report and leave.
process.on('uncaughtException', (error) => {
  process.send?.({ type: 'failed', message: error.message } satisfies HostMessage);
  process.exit(1);
});

main().catch((error: Error) => {
  process.send?.({ type: 'failed', message: error.message } satisfies HostMessage);
  process.exit(1);
});
