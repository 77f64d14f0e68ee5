/**
 * `gridwire parked list|redrive`: messages a queue's consumer failed on `maxReceiveCount` times
 * sit in that queue's redrive queue. `list` peeks at them without consuming them;
 * `redrive` moves them back to the queue they came from.
 *
 * Works against anything that speaks the SQS API, including the local stack's emulator: the
 * move is receive, send, delete (no StartMessageMoveTask). Peeking is in `peek.ts`, moving in
 * `redrive.ts`, what is printed in `format.ts`.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { OUTPUT_PREFIX_PATTERN, type QueueKey } from '../../shared/config/resources';
import { CliError, explainAwsError } from '../errors';
import { dataDirOption, integer } from '../options';
import {
  localTargets,
  missingQueues,
  parseQueueKey,
  QUEUE_KEYS,
  type QueueTarget,
  type QueueTargets,
  selectQueues,
  stackTargets,
} from '../targets';
import { formatList, formatRedrive } from './format';
import { DEFAULT_LIST_LIMIT, listParked, type ParkedQueueReport } from './peek';
import { type RedriveResult, redriveParked } from './redrive';

interface TargetOptions {
  queue?: QueueKey;
  dataDir: string;
  stack?: string;
  region?: string;
  pipeline?: string;
}

async function resolveTargets(options: TargetOptions): Promise<QueueTargets> {
  if (options.stack !== undefined) {
    return stackTargets(options.stack, options.region, undefined, options.pipeline);
  }
  if (options.region !== undefined) throw new CliError('--region goes with --stack');
  if (options.pipeline !== undefined) throw new CliError('--pipeline goes with --stack');
  return localTargets(options.dataDir);
}

function queuesFor(targets: QueueTargets, options: TargetOptions): QueueTarget[] {
  const queues = selectQueues(targets, options.queue);
  const missing = options.queue === undefined ? missingQueues(targets) : [];
  if (missing.length > 0) {
    console.error(
      `gridwire: ${targets.where} has no ${missing.join(', ')} queue outputs (deployed by an older version); skipping`,
    );
  }
  return queues;
}

const queueKeyArgument = (value: string) => {
  try {
    return parseQueueKey(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const outputPrefixArgument = (value: string) => {
  if (!OUTPUT_PREFIX_PATTERN.test(value)) {
    throw new InvalidArgumentError('an output prefix is 1 to 64 letters or digits');
  }
  return value;
};

function withTargetOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--queue <key>', `only this queue (${QUEUE_KEYS.join(', ')}); default: all`).argParser(
        queueKeyArgument,
      ),
    )
    .addOption(dataDirOption('data directory of the local stack to look in'))
    .addOption(new Option('--stack <name>', 'a deployed CloudFormation stack instead of the local stack'))
    .addOption(
      new Option(
        '--pipeline <prefix>',
        'with --stack: the pipeline whose outputPrefix this is, when the stack has several (default: its first)',
      ).argParser(outputPrefixArgument),
    )
    .addOption(
      new Option('--region <region>', "the stack's AWS region (default: from the AWS configuration)"),
    );
}

export function parkedCommand(): Command {
  const parked = new Command('parked').description(
    'Messages a queue consumer failed on repeatedly wait in redrive queues: look at them, or move them back.',
  );

  parked.addCommand(
    withTargetOptions(
      new Command('list').description(
        'Show how many messages each redrive queue holds and summarize some of them (without consuming them).',
      ),
    )
      .addOption(
        new Option('--limit <n>', 'messages to show per queue')
          .default(DEFAULT_LIST_LIMIT)
          .argParser(integer('--limit', 0, 1000)),
      )
      .option('--json', 'print JSON instead of text')
      .addHelpText(
        'after',
        '\nPeeking receives each shown message and makes it visible again at once; this adds one to\n' +
          'its receive count (harmless: redrive queues do not redrive further).',
      )
      .action(async (options: TargetOptions & { limit: number; json?: boolean }) => {
        const targets = await resolveTargets(options);
        // The queues are looked at together; each look ends (its peeked messages made visible
        // again) before the first failure, in queue order, is reported.
        const queues = queuesFor(targets, options);
        const looks = await Promise.allSettled(
          queues.map((queue) => listParked(targets.sqs, queue, { limit: options.limit })),
        );
        const reports: ParkedQueueReport[] = [];
        for (const [index, look] of looks.entries()) {
          if (look.status === 'fulfilled') reports.push(look.value);
          else throw explainAwsError(look.reason, `looking at the ${queues[index]?.key} redrive queue`);
        }
        console.log(options.json === true ? JSON.stringify(reports, null, 2) : formatList(reports));
      }),
  );

  parked.addCommand(
    withTargetOptions(
      new Command('redrive').description(
        'Move parked messages back to the queue they came from, to be delivered again (after fixing the cause).',
      ),
    )
      .addOption(
        new Option('--limit <n>', 'messages to move per queue (default: all)').argParser(
          integer('--limit', 1, 1_000_000),
        ),
      )
      .action(async (options: TargetOptions & { limit?: number }) => {
        const targets = await resolveTargets(options);
        const results: RedriveResult[] = [];
        for (const queue of queuesFor(targets, options)) {
          results.push(
            await redriveParked(
              targets.sqs,
              queue,
              options.limit === undefined ? {} : { limit: options.limit },
            ),
          );
        }
        console.log(formatRedrive(results));
        if (results.some((result) => result.failed.length > 0)) process.exitCode = 1;
      }),
  );
  return parked;
}
