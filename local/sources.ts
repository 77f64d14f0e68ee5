/**
 * Sources in the local stack (`gridwire start --source`), as `topic.addSource` makes them on AWS:
 * - `sqs:<queue>=<topic>` polls an emulator queue into a topic (`sqs:<queue>=<topic>:eventBridge`
 *   when its messages are EventBridge events);
 * - `eventbridge:<name>=<topic>` stands for a rule on a bus: its queue (`gridwire-source-<name>`)
 *   takes the events `POST /local/eventbridge/<name>` is given, as the rule's target would, and is
 *   polled into the topic, its messages converted.
 * A queue that does not exist is created, with a dead-letter queue (`<queue>-dlq`) that takes a
 * message after {@link SOURCE_MAX_RECEIVES} receives, as the construct's bus sources have; a
 * queue that exists keeps its own settings. The topic may be created after the stack starts:
 * messages for a topic that does not exist yet come back until it does (or their DLQ takes them).
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { FUNCTIONS } from '../shared/config/resources';
import { SOURCE_BATCH_SIZE, SOURCE_MAX_RECEIVES, type SourceDefinition } from '../shared/config/sources';
import type { LocalConsumer } from './functions';
import { INITIAL_POLLERS, QueuePoller } from './poller';
import { eventBridgeQueueName, type LocalSourceSpec } from './source-spec';
import { LocalStackError } from './stack-error';

/**
 * How long a created source queue hides a message being published (the publish function's timeout,
 * rounded up), divided by the stack's time scale: a refused message reaches its DLQ in seconds then.
 */
const LOCAL_SOURCE_VISIBILITY_SECONDS = FUNCTIONS.publish.timeoutSeconds + 1;

/** A source's queue in the emulator: its URL, and the source as the functions read it. */
export interface LocalSource {
  spec: LocalSourceSpec;
  queueUrl: string;
  definition: SourceDefinition;
}

/** The queue of each source, created (with its dead-letter queue) when it does not exist. */
export async function provisionLocalSources(
  sqs: SQSClient,
  specs: readonly LocalSourceSpec[],
  /** The stack's time scale: a created queue's visibility timeout is divided by it (at least 1 s). */
  timeScale = 1,
): Promise<LocalSource[]> {
  const sources: LocalSource[] = [];
  for (const spec of specs) {
    const queueName = spec.kind === 'eventBridge' ? eventBridgeQueueName(spec.name) : spec.name;
    const queueUrl =
      (await existingQueue(sqs, queueName)) ?? (await createSourceQueue(sqs, queueName, timeScale));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    const queueArn = Attributes?.QueueArn;
    if (queueArn === undefined) throw new LocalStackError(`The source queue ${queueName} has no ARN`);
    sources.push({
      spec,
      queueUrl,
      definition: { name: spec.name, kind: spec.kind, queueArn, topic: spec.topic, format: spec.format },
    });
  }
  return sources;
}

async function existingQueue(sqs: SQSClient, name: string): Promise<string | undefined> {
  try {
    return (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
  } catch (error) {
    const code = (error as { name?: string }).name ?? '';
    if (code.includes('NonExistentQueue') || code.includes('QueueDoesNotExist')) return undefined;
    throw error;
  }
}

async function createSourceQueue(sqs: SQSClient, name: string, timeScale: number): Promise<string> {
  const deadLetters = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq`.slice(0, 80) }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetters.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(Math.max(1, Math.round(LOCAL_SOURCE_VISIBILITY_SECONDS / timeScale))),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes?.QueueArn,
          maxReceiveCount: SOURCE_MAX_RECEIVES,
        }),
      },
    }),
  );
  if (created.QueueUrl === undefined)
    throw new LocalStackError(`The source queue ${name} could not be created`);
  return created.QueueUrl;
}

/** A poller per source's queue, handing its batches to the publish function, as its event source mapping would. */
export function sourcePollers(
  sqs: SQSClient,
  sources: readonly LocalSource[],
  consumer: LocalConsumer,
  options: { receiveWaitSeconds?: number; pollersPerQueue?: number } = {},
): QueuePoller[] {
  return sources.map(
    (source) =>
      new QueuePoller({
        sqs,
        queueUrl: source.queueUrl,
        queueArn: source.definition.queueArn,
        batchSize: SOURCE_BATCH_SIZE,
        batchingWindowMs: 0,
        initialPollers: Math.min(options.pollersPerQueue ?? INITIAL_POLLERS, 2),
        ...(options.receiveWaitSeconds === undefined ? {} : { waitTimeSeconds: options.receiveWaitSeconds }),
        maxConcurrency: 2,
        fn: FUNCTIONS.publish,
        fnKey: 'publish',
        handler: consumer.handler,
        logger: consumer.logger,
      }),
  );
}

/** The path of the route that stands for an `eventbridge:` source's rule. */
export const LOCAL_EVENTBRIDGE_PATH = '/local/eventbridge/';

/**
 * What `POST /local/eventbridge/<name>` does: the events of its body (one EventBridge event, or an
 * array of them) sent to the source's queue one message each, as the rule's target sends them.
 * Answers how many were queued; a source of that name that does not exist, or a body that is not
 * JSON, is a 4xx.
 */
export async function sendToEventBridgeSource(
  sqs: SQSClient,
  sources: readonly LocalSource[],
  name: string,
  body: string,
): Promise<{ status: number; body: unknown }> {
  const source = sources.find(
    (candidate) => candidate.spec.kind === 'eventBridge' && candidate.spec.name === name,
  );
  if (source === undefined) {
    const names = sources
      .filter((candidate) => candidate.spec.kind === 'eventBridge')
      .map((candidate) => candidate.spec.name);
    return {
      status: 404,
      body: {
        error: {
          code: 'NotFound',
          message: `No eventbridge source named '${name}' (start the stack with --source eventbridge:${name}=<topic>); this stack has ${names.length === 0 ? 'none' : names.join(', ')}.`,
        },
      },
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return {
      status: 400,
      body: {
        error: {
          code: 'BadRequest',
          message: 'The body is not JSON: give an EventBridge event or an array of them.',
        },
      },
    };
  }
  const events = Array.isArray(value) ? value : [value];
  for (let start = 0; start < events.length; start += 10) {
    const chunk = events.slice(start, start + 10);
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: source.queueUrl,
        Entries: chunk.map((event, index) => ({ Id: String(index), MessageBody: JSON.stringify(event) })),
      }),
    );
    if ((sent.Failed ?? []).length > 0) {
      return {
        status: 503,
        body: {
          error: {
            code: 'ServiceUnavailable',
            message: `The source queue refused ${sent.Failed?.length} of the events; ${start} were queued before.`,
          },
        },
      };
    }
  }
  return { status: 200, body: { queued: events.length, queue: source.queueUrl } };
}
