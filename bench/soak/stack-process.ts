/**
 * The soak's local stack, in a process of its own (forked by `stack-control.ts`) so the soak can
 * SIGKILL it whole and start it again on the same data directory, as an operator's machine would
 * lose it. Its table client reaches the DynamoDB emulator through a loopback proxy the soak can
 * take down (`{ type: 'table', down }`), and it consumes the SQS destination queue the soak
 * subscribes to, telling the soak each event it read before deleting it (so a kill between the
 * two shows the event again: a duplicate, never a loss). The emulator process dying takes the
 * stack down with status 1, as `gridwire start` does.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { releaseMemoryWhenQuiet } from '../../local/memory-release';
import { startLocalStack } from '../../local/stack';
import { TcpProxy } from '../fault-proxy';
import type { SoakStackCommand, SoakStackMessage, SoakStackOptions } from './stack-protocol';

const tell = (message: SoakStackMessage): void => {
  process.send?.(message);
};

/** Event ids in an SQS destination's message body: one event, or an array of them. */
function idsOf(body: string): string[] {
  const parsed = JSON.parse(body) as unknown;
  const events = Array.isArray(parsed) ? parsed : [parsed];
  return events.map((event) => String((event as { id?: unknown }).id));
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as SoakStackOptions;
  let table: TcpProxy | undefined;
  const stack = await startLocalStack({
    dataDir: options.dataDir,
    port: 0,
    adminToken: options.adminToken,
    timeScale: options.timeScale,
    logLevel: 'ERROR',
    topicCacheMs: 1000,
    routeClients: async (endpoints) => {
      table = await new TcpProxy(endpoints.dynamodb).start();
      return { ...endpoints, dynamodb: table.url };
    },
    onFatal: (error) => {
      tell({ type: 'fatal', message: error.message });
      process.exit(1);
    },
  });
  process.on('message', (command: SoakStackCommand) => {
    if (command.type === 'table') {
      if (command.down) table?.down();
      else table?.up();
      tell({ type: 'table', down: command.down });
    }
  });
  const sqs = stack.clients.resources?.sqs('us-east-1');
  if (sqs === undefined) throw new Error('the local stack has no resource clients');
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: options.destinationQueue }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  // As `gridwire start` does: what a burst left behind goes back to the system once it is quiet.
  releaseMemoryWhenQuiet();
  tell({
    type: 'ready',
    apiUrl: stack.apiUrl,
    destinationQueueArn: Attributes?.QueueArn ?? '',
  });
  // The destination queue, read as a consumer would: told, then deleted.
  for (;;) {
    try {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      if (Messages.length === 0) continue;
      tell({ type: 'queued', ids: Messages.flatMap((message) => idsOf(message.Body ?? '[]')) });
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl,
          Entries: Messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle ?? '',
          })),
        }),
      );
    } catch {
      // The emulator away (a fault of the soak's): read again in a moment.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

main().catch((error: Error) => {
  tell({ type: 'fatal', message: error.stack ?? error.message });
  process.exit(1);
});
