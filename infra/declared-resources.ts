/**
 * Topics and event subscriptions declared in code: `pipeline.addTopic('orders')` and
 * `topic.addSubscription('billing', { endpointUrl })` become CloudFormation custom resources that
 * the pipeline's management function carries out with the admin API's own operations
 * (`shared/management/declared-resources.ts`): validated as an API request is, created on
 * deploy, changed when the code changes, deleted when it is removed. A subscription's endpoint
 * is asked to agree (the validation handshake) without holding up the deployment, unless the
 * subscription says `validation: 'wait'`: then it is created once its endpoint agreed, and one
 * that does not agree fails the deployment with its answer. Access keys are made by the API and never appear in the template:
 * read them with `gridwire` or the admin API's `listKeys`.
 *
 * One provider (the framework's function and its completion checks) serves all of a pipeline's
 * declarations. Its checks run every 5 s within {@link DECLARED_TOTAL_TIMEOUT_MINUTES}, which
 * bounds how long a subscription may wait for its endpoint (`validationWaitSeconds`).
 */

import {
  type CfnResource,
  CustomResource,
  Duration,
  Lazy,
  type RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct, type IDependable } from 'constructs';
import type { SourceDefinition } from '../shared/config/sources';
import { TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { PAIR_SEPARATOR } from '../shared/delivery/rules/resource-destinations';
import type { DeclaredKind } from '../shared/management/declared-resources';
import {
  archiveBody,
  checkName,
  checkRange,
  type DeclaredDeadLetter,
  type DeclaredEventTypeProps,
  type DeclaredSubscriptionProps,
  deadLetterDestinationBody,
  deduplicationWindowBody,
  eventTypeBody,
  eventValidationBody,
  filterBody,
  validationWaitOf,
  webhookDestinationBody,
  webhookSettingsOf,
} from './declared-bodies';
import type { DeclaredEndpointAuth, DeclaredEndpointTls } from './declared-credentials';
import type { DeclaredDestination } from './destinations';
import type { DeclaredSource } from './sources';

/** The provider's time limit for one declaration: under CloudFormation's hour for a custom resource. */
export const DECLARED_TOTAL_TIMEOUT_MINUTES = 55;

/** A declared topic: its input schema and tags, as `PUT /admin/topics/{topic}` takes them. */
export interface DeclaredTopicProps {
  /** Default `EventGridSchema`. */
  readonly inputSchema?: 'EventGridSchema' | 'CloudEventSchemaV1_0' | 'CustomEventSchema';
  readonly tags?: Readonly<Record<string, string>>;
  /**
   * Minutes a publish of an event whose id the topic already accepted is answered 200 but not
   * delivered again: 0 (off, the default) to 1440.
   */
  readonly deduplicationWindowInMinutes?: number;
  /**
   * Keep every event the topic accepts in the archive bucket for `retentionInDays` (1 to 365).
   * Default: no archive (removing the prop turns it off).
   */
  readonly archive?: { readonly retentionInDays: number };
  /**
   * Check each published event's data against its type's schema in the topic's event catalog
   * (`addEventType`). Default false (removing the prop turns it off).
   */
  readonly validateEvents?: boolean;
  /**
   * With `validateEvents`: what an event of a type the catalog does not list gets, `allow` (the
   * default) or `reject`.
   */
  readonly unknownEventTypes?: 'allow' | 'reject';
  /** Further topic properties, as the admin API's body names them (e.g. `inputSchemaMapping`). */
  readonly properties?: Readonly<Record<string, unknown>>;
}

/** What the provider of a pipeline's declarations needs besides its management function. */
export interface DeclaredResourcesOptions {
  /** Days the provider framework's logs are kept. */
  readonly logRetention?: RetentionDays;
  /** What happens to the provider framework's log group when the stack is deleted or its first create fails. */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * What must exist before a declaration is carried out besides the management function: the
   * delivery function and its queue event sources, which run a subscription's validation
   * handshake (the management function only queues it). Without them a first deploy could ask
   * an endpoint before anything is there to ask it.
   */
  readonly dependsOn?: readonly IDependable[];
  /** Lets the pipeline's delivery function send to a declared subscription's AWS resource (its grant). */
  readonly allow?: (destination: DeclaredDestination) => void;
  /**
   * Adds a bucket a declared subscription's dead letters are written to (through `role`, when
   * given) to the pipeline's dead-letter buckets: allowed and granted.
   */
  readonly allowDeadLetterBucket?: (bucket: s3.IBucket | string, role: string | undefined) => void;
  /** Adds a source of a declared topic: its queue consumed by the publish function once `after` exists. */
  readonly addSource?: (topic: string, source: DeclaredSource, after: IDependable) => SourceDefinition;
}

/**
 * The entry a declared destination adds to the list the management API allows: its resource, or
 * the resource paired with the role it is sent through (`<resource>|<role>`), when it has one, so
 * the declaration's role may send to that resource whatever its account, and neither goes with
 * another resource or role by this entry.
 */
const allowedArnsOf = (destination: DeclaredDestination): string[] => [
  destination.role === undefined
    ? destination.resourceArn
    : `${destination.resourceArn}${PAIR_SEPARATOR}${destination.role.roleArn}`,
];

/** The retry limits classic topics' subscriptions take (the `topic` profile's, as the API checks). */
const LIMITS = TOPIC_PROFILE.limits;

/** The provider of a pipeline's declarations: its management function, asked through the framework. */
export class DeclaredResources extends Construct {
  /** The provider framework: its functions carry out every declaration of the pipeline. */
  readonly provider: Provider;
  private readonly dependsOn: readonly IDependable[];
  private readonly allow: (destination: DeclaredDestination) => void;
  private readonly allowBucket: (bucket: s3.IBucket | string, role: string | undefined) => void;
  /** Adds a declared topic's source (the pipeline's). */
  readonly addSource: (topic: string, source: DeclaredSource, after: IDependable) => SourceDefinition;
  /** The resources and roles declared subscriptions deliver to, as the list resource puts them. */
  private readonly declaredArns: string[] = [];
  /**
   * The list of declared destinations in the table (`Custom::GridwireDeclaredDestinations`), made
   * with the first declared destination: each subscription to one is put after it.
   */
  private destinationsList: CustomResource | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly management: IFunction & IDependable,
    options: DeclaredResourcesOptions = {},
  ) {
    super(scope, id);
    this.dependsOn = options.dependsOn ?? [];
    this.allow = options.allow ?? (() => {});
    this.allowBucket = options.allowDeadLetterBucket ?? (() => {});
    this.addSource =
      options.addSource ??
      (() => {
        throw new Error('addSource: this declaration has no pipeline to consume a source');
      });
    this.provider = new Provider(this, 'Provider', {
      onEventHandler: management,
      isCompleteHandler: management,
      queryInterval: Duration.seconds(5),
      totalTimeout: Duration.minutes(DECLARED_TOTAL_TIMEOUT_MINUTES),
      logGroup: new LogGroup(this, 'ProviderLogs', {
        retention: options.logRetention ?? RetentionDays.ONE_MONTH,
        ...(options.removalPolicy === undefined ? {} : { removalPolicy: options.removalPolicy }),
      }),
    });
    acknowledgeProvider(this.provider, management);
  }

  /**
   * The provider framework's own functions (made by aws-cdk-lib): `onEvent` answers
   * CloudFormation for every declaration, `isComplete` asks the management function while one
   * waits for its endpoint, `onTimeout` fails one whose wait ran out. The pipeline alarms on
   * their errors (`alarms.declaredResourcesErrors`).
   */
  get frameworkFunctions(): Readonly<Record<'onEvent' | 'isComplete' | 'onTimeout', IFunction>> {
    const find = (entrypoint: string) => this.provider.node.findChild(`framework-${entrypoint}`) as IFunction;
    return { onEvent: find('onEvent'), isComplete: find('isComplete'), onTimeout: find('onTimeout') };
  }

  /**
   * Lets the pipeline deliver to a declared subscription's AWS resource, when it has one: the
   * delivery function's grant, and the resource (and its role) on the list the management API
   * allows, kept in the table rather than the function's environment, which it would outgrow. The
   * subscription's resource is put after the list.
   */
  allowDestination(destination: DeclaredDestination | undefined, subscription: CustomResource): void {
    if (destination === undefined) return;
    this.allow(destination);
    this.declaredArns.push(...allowedArnsOf(destination));
    this.destinationsList ??= this.declaredDestinationsList();
    subscription.node.addDependency(this.destinationsList);
  }

  /**
   * A declared subscription's dead-letter destination, as the body names it, when it has one;
   * its bucket, when not the stack's, allowed and granted (`deadLetterBuckets`). `given` names
   * the body's own setting of it (`properties`, `push`), refused beside `deadLetter`.
   */
  deadLetterDestination(
    deadLetter: DeclaredDeadLetter | undefined,
    given: string | undefined,
  ): ReturnType<typeof deadLetterDestinationBody> | undefined {
    if (deadLetter === undefined) return undefined;
    if (given !== undefined) {
      throw new Error(`deadLetter: give it or ${given}, not both.`);
    }
    const body = deadLetterDestinationBody(deadLetter);
    if (deadLetter.bucket !== undefined) this.allowBucket(deadLetter.bucket, deadLetter.role);
    return body;
  }

  private declaredDestinationsList(): CustomResource {
    const list = new CustomResource(this, 'Destinations', {
      serviceToken: this.provider.serviceToken,
      resourceType: 'Custom::GridwireDeclaredDestinations',
      properties: {
        Kind: 'DeclaredDestinations',
        Body: Stack.of(this).toJsonString({
          resources: Lazy.list({ produce: () => [...new Set(this.declaredArns)] }),
        }),
      },
    });
    list.node.addDependency(this.management, ...this.dependsOn);
    return list;
  }

  /**
   * The custom resource properties a subscription's endpoint auth adds: the client secret's ARN,
   * which the management function is granted to read.
   */
  authProperties(auth: DeclaredEndpointAuth | undefined): Record<string, string> {
    if (auth?.type !== 'OAuth2ClientCredentials') return {};
    auth.clientSecret.grantRead(this.management);
    return { ClientSecretArn: auth.clientSecret.secretArn };
  }

  /**
   * The custom resource properties a subscription's client certificate adds: its key's secret ARN,
   * which the management function is granted to read.
   */
  tlsProperties(tls: DeclaredEndpointTls | undefined): Record<string, string> {
    if (tls?.clientKey === undefined) return {};
    tls.clientKey.grantRead(this.management);
    return { ClientKeySecretArn: tls.clientKey.secretArn };
  }

  /**
   * A declared topic's event type (`kind` `EventType`, or `NamespaceEventType`), made after its
   * topic (`topic`) and deleted before it; ids stay apart per name (`EventType<name>`, the name's
   * characters that ids do not take replaced).
   */
  eventType(
    scope: Construct,
    topic: CustomResource,
    kind: 'EventType' | 'NamespaceEventType',
    names: Record<string, string>,
    props: DeclaredEventTypeProps,
  ): CustomResource {
    const body = eventTypeBody(props);
    const id = `EventType${props.name.replace(/[^A-Za-z0-9]/g, '_')}`;
    const resource = this.resource(scope, id, kind, { ...names, EventType: props.name }, body);
    resource.node.addDependency(topic);
    return resource;
  }

  /**
   * A custom resource for one declaration, made after the management function (and its grants)
   * and whatever else the declarations depend on (`dependsOn`: the handshake's delivery function
   * and event sources).
   */
  resource(
    scope: Construct,
    id: string,
    kind: DeclaredKind,
    names: Record<string, string>,
    body: unknown,
    extra: Record<string, string> = {},
  ) {
    const resource = new CustomResource(scope, id, {
      serviceToken: this.provider.serviceToken,
      resourceType: `Custom::Gridwire${kind}`,
      properties: { Kind: kind, ...names, Body: JSON.stringify(body), ...extra },
    });
    resource.node.addDependency(this.management, ...this.dependsOn);
    return resource;
  }
}

/** A topic declared in code; `addSubscription` declares its webhook subscriptions. */
export class DeclaredTopic extends Construct {
  readonly resource: CustomResource;

  constructor(
    scope: Construct,
    id: string,
    private readonly declarations: DeclaredResources,
    readonly topicName: string,
    props: DeclaredTopicProps = {},
  ) {
    super(scope, id);
    checkName('topic', topicName);
    if (
      props.deduplicationWindowInMinutes !== undefined &&
      props.properties?.deduplicationWindowInMinutes !== undefined
    ) {
      throw new Error(
        'deduplicationWindowInMinutes: give it or properties.deduplicationWindowInMinutes, not both.',
      );
    }
    if (props.archive !== undefined && props.properties?.archive !== undefined) {
      throw new Error('archive: give it or properties.archive, not both.');
    }
    this.resource = declarations.resource(
      this,
      'Resource',
      'Topic',
      { Topic: topicName },
      {
        // Tags beside the properties, as the API's topic body has them.
        ...(props.tags === undefined ? {} : { tags: props.tags }),
        properties: {
          inputSchema: props.inputSchema ?? 'EventGridSchema',
          ...deduplicationWindowBody(props.deduplicationWindowInMinutes),
          ...archiveBody(props.archive, true),
          ...eventValidationBody(props.validateEvents, props.unknownEventTypes),
          ...props.properties,
        },
      },
    );
  }

  /**
   * Declares an event type of this topic's catalog: its description, the JSON Schema (draft
   * 2020-12) of its events' data and an example, checked at synthesis as the API checks them.
   * Created after the topic, replaced when it changes, deleted when it is removed.
   */
  addEventType(props: DeclaredEventTypeProps): CustomResource {
    return this.declarations.eventType(this, this.resource, 'EventType', { Topic: this.topicName }, props);
  }

  /**
   * Brings events already in AWS into this topic, without an HTTP hop: the messages of an SQS
   * queue (`Source.sqs(queue)`), or the events of an EventBridge bus that match a pattern
   * (`Source.eventBridge(bus, { eventPattern })`), published by the publish rules of the topic.
   */
  addSource(source: DeclaredSource): SourceDefinition {
    return this.declarations.addSource(this.topicName, source, this.resource);
  }

  /** Declares a webhook subscription of this topic. */
  addSubscription(name: string, props: DeclaredSubscriptionProps): CustomResource {
    checkName('subscription', name);
    checkRange('maxDeliveryAttempts', props.maxDeliveryAttempts, {
      ...LIMITS.maxDeliveryAttempts,
      integer: true,
    });
    checkRange('eventTimeToLiveInMinutes', props.eventTimeToLiveInMinutes, {
      ...LIMITS.eventTimeToLiveInMinutes,
      integer: true,
    });
    const wait = validationWaitOf(props);
    const filter = filterBody(props);
    if (props.orderedDelivery !== undefined && props.properties?.orderedDelivery !== undefined) {
      throw new Error('orderedDelivery: give it or properties.orderedDelivery, not both.');
    }
    const settings = webhookSettingsOf(props, TOPIC_PROFILE);
    const deadLetterDestination = this.declarations.deadLetterDestination(
      props.deadLetter,
      props.properties?.deadLetterDestination === undefined ? undefined : 'properties.deadLetterDestination',
    );
    const retryPolicy = {
      ...(props.maxDeliveryAttempts === undefined ? {} : { maxDeliveryAttempts: props.maxDeliveryAttempts }),
      ...(props.eventTimeToLiveInMinutes === undefined
        ? {}
        : { eventTimeToLiveInMinutes: props.eventTimeToLiveInMinutes }),
      ...(settings.retrySchedule === undefined ? {} : { retrySchedule: settings.retrySchedule }),
    };
    const body = {
      properties: {
        destination: webhookDestinationBody(props),
        ...(filter === undefined ? {} : { filter }),
        ...(Object.keys(retryPolicy).length === 0 ? {} : { retryPolicy }),
        ...(props.eventDeliverySchema === undefined
          ? {}
          : { eventDeliverySchema: props.eventDeliverySchema }),
        ...settings.properties,
        ...(deadLetterDestination === undefined ? {} : { deadLetterDestination }),
        ...props.properties,
      },
    };
    const resource = this.declarations.resource(
      this,
      `Subscription${name}`,
      'Subscription',
      { Topic: this.topicName, Subscription: name },
      body,
      {
        ...wait,
        ...this.declarations.authProperties(props.auth),
        ...this.declarations.tlsProperties(props.tls),
      },
    );
    this.declarations.allowDestination(props.destination, resource);
    // Created after its topic, deleted before it.
    resource.node.addDependency(this.resource);
    return resource;
  }
}

/** `<logical id>.Arn`, as cdk-nag names a function's ARN in a finding. */
function functionArnToken(fn: IConstruct): string {
  const cfn = fn.node.defaultChild as CfnResource | undefined;
  return `${Stack.of(fn).resolve((cfn as unknown as { logicalId: string }).logicalId)}.Arn`;
}

/** The provider framework's own functions, role and state machine, as cdk-nag finds them. */
function acknowledgeProvider(provider: Provider, management: IConstruct): void {
  // The framework may invoke the management function's versions, and its waiter the framework's
  // own completion and timeout functions' (`<arn>:*`): grants aws-cdk-lib writes.
  const invoked = [management, ...provider.node.findAll().filter((child) => child instanceof LambdaFunction)];
  Validations.of(provider).acknowledge(
    ...invoked.map((fn) => ({
      id: `AwsSolutions-IAM5[Resource::<${functionArnToken(fn)}>:*]`,
      reason:
        "The provider framework may invoke its functions' versions (`<arn>:*`); aws-cdk-lib writes the grant.",
    })),
  );
  Validations.of(provider).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "The custom resource provider framework's own functions (made by aws-cdk-lib) use the basic execution role; they only invoke the management function and write their logs.",
    },
    {
      id: 'AwsSolutions-L1',
      reason: "The provider framework's functions run the runtime aws-cdk-lib chooses for them.",
    },
    {
      id: 'AwsSolutions-SF1',
      reason:
        'The completion waiter of the provider framework is a state machine aws-cdk-lib makes; its steps are logged by the framework functions.',
    },
    {
      id: 'AwsSolutions-SF2',
      reason: 'X-Ray is opt-in for the pipeline (`tracing`); the waiter runs only during deployments.',
    },
    {
      id: 'Serverless-LambdaTracing',
      reason:
        'X-Ray is opt-in for the pipeline (`tracing`); the framework functions run only during deployments.',
    },
    {
      id: 'Serverless-LambdaDLQ',
      reason:
        'The framework functions are invoked synchronously by CloudFormation and its waiter, which report a failure themselves.',
    },
    {
      id: 'Serverless-LambdaDefaultMemorySize',
      reason: "The framework functions' memory is aws-cdk-lib's choice; they run a few times per deployment.",
    },
    {
      id: 'Serverless-StepFunctionStateMachineXray',
      reason: 'X-Ray is opt-in for the pipeline (`tracing`); the waiter runs only during deployments.',
    },
  );
}
