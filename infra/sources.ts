/**
 * Events already in AWS as the sources of declared topics (`topic.addSource(Source.sqs(queue))`,
 * `topic.addSource(Source.eventBridge(bus, { eventPattern }))`): the publish function consumes
 * each source's queue (an SQS event source mapping reporting partial batch failures) and publishes
 * its messages to the topic by the publish rules (`shared/publish/sources.ts`). A bus source is a
 * rule on the bus whose target is a queue of the stack's, with the rule's own retry policy and a
 * dead-letter queue, so nothing is lost between the bus and the topic: what the rule could not put
 * in the queue and what the topic refused both end in the source's dead-letter queue, alarmed.
 */
import { Duration, Lazy, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IDependable } from 'constructs';
import { ENV, FUNCTIONS, SQS_LIMITS } from '../shared/config/resources';
import {
  SOURCE_BATCH_SIZE,
  SOURCE_MAX_RECEIVES,
  type SourceDefinition,
  type SourceFormat,
} from '../shared/config/sources';

import { METRIC } from '../shared/observability/metrics';
import { FIVE_MINUTES, pipelineMetric } from './metric-series';
import { alarmMaker } from './monitoring';
import type { PipelineFunction } from './pipeline-function';

/** Days a bus source's queues keep a message (SQS's longest). */
const SOURCE_RETENTION_DAYS = 14;

/**
 * A bus source's queue hides a message being published this long: six times the publish
 * function's timeout, as Lambda advises for an event source.
 */
const SOURCE_VISIBILITY_SECONDS = 6 * FUNCTIONS.publish.timeoutSeconds;

/** How the rule of a bus source retries putting an event in its queue (EventBridge's longest). */
const RULE_RETRY = { attempts: 185, maxEventAge: Duration.hours(24) };

export interface SqsSourceOptions {
  /**
   * What each message holds: `'topic'` (default) an event, or an array of events, in the topic's
   * input schema, as the publish API takes them; `'eventBridge'` an EventBridge event (as an
   * EventBridge rule with an SQS target sends it), converted to the topic's schema.
   */
  readonly format?: SourceFormat;
  /** Concurrent invocations the queue's event source mapping may use at most (2 to 1000). Default: Lambda's. */
  readonly maxConcurrency?: number;
}

export interface EventBridgeSourceOptions {
  /** The events of the bus that go to the topic (the rule's event pattern). */
  readonly eventPattern: events.EventPattern;
  /** A name for the source in metrics and logs. Default: the rule's construct id. */
  readonly name?: string;
}

/** A source as a topic adds it: what it makes in the stack, and what the functions are told of it. */
export interface DeclaredSource {
  readonly kind: 'sqs' | 'eventBridge';
  /** Makes what the source needs under `scope`; the queue the publish function consumes, and the source as the functions read it. */
  bind(
    scope: Construct,
    topic: string,
  ): { queue: sqs.IQueue; definition: SourceDefinition; deadLetters?: sqs.IQueue; maxConcurrency?: number };
}

export const Source = {
  /**
   * A queue of yours whose messages are published to the topic. A message the topic refuses stays
   * in the queue (a batch item failure) until the queue's own redrive policy moves it to its
   * dead-letter queue: give the queue one. Its visibility timeout must be at least the publish
   * function's timeout (29 s); Lambda advises six times it.
   */
  sqs(queue: sqs.IQueue, options: SqsSourceOptions = {}): DeclaredSource {
    return {
      kind: 'sqs',
      bind: () => ({
        queue,
        definition: {
          name: queue.queueName,
          kind: 'sqs',
          queueArn: queue.queueArn,
          topic: '',
          format: options.format ?? 'topic',
        },
        ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
      }),
    };
  },

  /**
   * The events of an EventBridge bus matching `eventPattern`: a rule on the bus sends them to a
   * queue of the stack's (retrying for 24 hours, then to the source's dead-letter queue), whose
   * messages are converted to the topic's schema and published. The bus must be in the stack's
   * account: a bus of another account forwards its events to one here (a rule there whose target
   * is this account's bus, which this bus's resource policy allows).
   */
  eventBridge(bus: events.IEventBus, options: EventBridgeSourceOptions): DeclaredSource {
    return {
      kind: 'eventBridge',
      bind: (scope) => {
        const stack = Stack.of(scope);
        const busAccount = bus.env.account;
        if (
          !Token.isUnresolved(busAccount) &&
          !Token.isUnresolved(stack.account) &&
          busAccount !== stack.account
        ) {
          throw new Error(
            `Source.eventBridge: the bus is in account ${busAccount} and the stack in ${stack.account}; a rule can only be made on a bus of its own account. Forward the events to a bus of this account (a rule in ${busAccount} whose target is that bus, allowed by its resource policy) and make that bus the source.`,
          );
        }
        const deadLetters = new sqs.Queue(scope, 'DeadLetters', {
          retentionPeriod: Duration.days(SOURCE_RETENTION_DAYS),
          encryption: sqs.QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
        });
        Validations.of(deadLetters).acknowledge(
          {
            id: 'Serverless-SQSRedrivePolicy',
            reason:
              "This is the source's dead-letter queue: it holds what the rule could not queue and what the topic refused, for an operator. A queue of its own would only move them further from sight.",
          },
          {
            id: 'AwsSolutions-SQS3',
            reason: "This is the source's dead-letter queue itself.",
          },
        );
        const queue = new sqs.Queue(scope, 'Queue', {
          visibilityTimeout: Duration.seconds(SOURCE_VISIBILITY_SECONDS),
          retentionPeriod: Duration.days(SOURCE_RETENTION_DAYS),
          encryption: sqs.QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          maxMessageSizeBytes: SQS_LIMITS.maxMessageBytes,
          deadLetterQueue: { queue: deadLetters, maxReceiveCount: SOURCE_MAX_RECEIVES },
        });
        const rule = new events.Rule(scope, 'Rule', {
          eventBus: bus,
          eventPattern: options.eventPattern,
          description: 'Gridwire: events of this bus published to a topic',
        });
        rule.addTarget(
          new targets.SqsQueue(queue, {
            retryAttempts: RULE_RETRY.attempts,
            maxEventAge: RULE_RETRY.maxEventAge,
            deadLetterQueue: deadLetters,
          }),
        );
        return {
          queue,
          deadLetters,
          definition: {
            name: options.name ?? `${bus.eventBusName}/${scope.node.id}`,
            kind: 'eventBridge',
            queueArn: queue.queueArn,
            topic: '',
            format: 'eventBridge',
            bus: bus.eventBusName,
            eventPattern: stack.toJsonString(options.eventPattern),
          },
        };
      },
    };
  },
};

/**
 * The sources of a pipeline's declared topics: the publish function consumes their queues, and it
 * and the management function (which shows a topic's sources) read them from `ENV.sources`; an
 * alarm fires on refused messages, and one per bus source on its dead-letter queue.
 */
export class PipelineSources extends Construct {
  private readonly definitions: SourceDefinition[] = [];
  /** `SourceRefusedCount`, made with the first source. */
  refusedAlarm: cloudwatch.Alarm | undefined;
  /** Each bus source's dead-letter queue holding messages. */
  readonly deadLetterAlarms: cloudwatch.Alarm[] = [];

  constructor(
    scope: Construct,
    id: string,
    private readonly publish: PipelineFunction,
    private readonly management: PipelineFunction,
    private readonly alarmTopic: sns.ITopic,
    private readonly metricsNamespace: string,
  ) {
    super(scope, id);
  }

  /** Adds a source of `topic`; its queue is consumed after `after` (the topic's resource) exists. */
  add(topic: string, source: DeclaredSource, after: IDependable): SourceDefinition {
    const index = this.definitions.length;
    const scope = new Construct(this, `Source${index}`);
    const bound = source.bind(scope, topic);
    const definition = { ...bound.definition, topic };
    if (this.definitions.length === 0) this.first();
    this.definitions.push(definition);
    bound.queue.grantConsumeMessages(this.publish);
    const mapping = new EventSourceMapping(scope, 'Mapping', {
      target: this.publish,
      eventSourceArn: bound.queue.queueArn,
      batchSize: SOURCE_BATCH_SIZE,
      reportBatchItemFailures: true,
      ...(bound.maxConcurrency === undefined ? {} : { maxConcurrency: bound.maxConcurrency }),
    });
    // Messages wait in the queue until the topic they go to exists.
    mapping.node.addDependency(after);
    Validations.of(mapping).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "An SQS event source mapping takes no on-failure destination; a message the topic refuses stays in the source's queue until its redrive policy moves it to its dead-letter queue.",
    });
    if (bound.deadLetters !== undefined) this.alarmOn(scope, definition, bound.deadLetters);
    return definition;
  }

  /** The sources so far, as the functions read them. */
  get sources(): readonly SourceDefinition[] {
    return this.definitions;
  }

  /** What the first source sets up: the functions' setting (filled at synthesis) and the refusal alarm. */
  private first(): void {
    const value = Lazy.string({ produce: () => Stack.of(this).toJsonString(this.definitions) });
    this.publish.addEnvironment(ENV.sources, value);
    this.management.addEnvironment(ENV.sources, value);
    this.refusedAlarm = alarmMaker(
      this,
      this.alarmTopic,
    )({
      id: 'SourceRefusedAlarm',
      metric: pipelineMetric(this.metricsNamespace, METRIC.SourceRefusedCount, 'Sum'),
      threshold: 0,
      periods: 1,
      description:
        'a source message was refused by its topic (the publish rules, or a topic that does not exist): it stays in its queue until the queue\'s dead-letter queue takes it. The publish function\'s "a source message was refused" lines say why.',
    });
  }

  private alarmOn(scope: Construct, definition: SourceDefinition, deadLetters: sqs.IQueue): void {
    this.deadLetterAlarms.push(
      alarmMaker(
        scope,
        this.alarmTopic,
      )({
        id: `SourceDeadLettersAlarm${this.deadLetterAlarms.length}`,
        metric: deadLetters.metricApproximateNumberOfMessagesVisible({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
        }),
        threshold: 0,
        periods: 1,
        description: `the dead-letter queue of the source ${definition.name} holds messages: events of its bus the rule could not queue, or that its topic refused. Read them in the SQS console; send them again to the source's queue once the cause is fixed.`,
      }),
    );
  }
}
