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
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct, type IDependable } from 'constructs';
import { describeRange, isInRange, type SettingRange } from '../shared/config/runtime';
import { type DeliveryProfile, TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { RATE_LIMITS } from '../shared/delivery/rules/rate-limit';
import { PAIR_SEPARATOR } from '../shared/delivery/rules/resource-destinations';
import { isValidName, NAME_RULES, type NameKind } from '../shared/domain/names';
import {
  DECLARED_VALIDATION_MODES,
  DEFAULT_DECLARED_VALIDATION,
  type DeclaredKind,
  type DeclaredValidationMode,
  MAX_VALIDATION_WAIT_SECONDS,
  VALIDATION_WAIT_SECONDS,
} from '../shared/management/declared-resources';
import { disableAfterSchema, retryScheduleSchema } from '../shared/management/subscription-schema';
import type { DeclaredDestination } from './destinations';

/** The provider's time limit for one declaration: under CloudFormation's hour for a custom resource. */
export const DECLARED_TOTAL_TIMEOUT_MINUTES = 55;

/** A declared topic: its input schema and tags, as `PUT /admin/topics/{topic}` takes them. */
export interface DeclaredTopicProps {
  /** Default `EventGridSchema`. */
  readonly inputSchema?: 'EventGridSchema' | 'CloudEventSchemaV1_0' | 'CustomEventSchema';
  readonly tags?: Readonly<Record<string, string>>;
  /** Further topic properties, as the admin API's body names them (e.g. `inputSchemaMapping`). */
  readonly properties?: Readonly<Record<string, unknown>>;
}

/** A declared webhook subscription of a topic, in the admin API's terms. */
export interface DeclaredSubscriptionProps extends DeclaredWebhookProps {
  /** 1 to 30 (default 30), as the `topic` profile allows. */
  readonly maxDeliveryAttempts?: number;
  /** 1 to 1440 (default 1440), as the `topic` profile allows. */
  readonly eventTimeToLiveInMinutes?: number;
  readonly eventDeliverySchema?: 'EventGridSchema' | 'CloudEventSchemaV1_0' | 'CustomInputSchema';
  readonly labels?: readonly string[];
  /**
   * Further subscription properties, as the admin API's body names them (`advancedFilters`,
   * `deadLetterDestination`, `deliveryAttributeMappings`...), merged over the ones above.
   */
  readonly properties?: Readonly<Record<string, unknown>>;
}

/** Throws naming the rule when `name` is not a valid name of its kind. */
export const checkName = (kind: NameKind, name: string): void => {
  if (!isValidName(kind, name)) {
    const rule = NAME_RULES[kind];
    throw new Error(
      `The ${kind} name '${name}' is not valid: ${rule.min} to ${rule.max} letters, digits and hyphens.`,
    );
  }
};

/** Checks a numeric prop against its range, naming the field and the limit. */
export const checkRange = (field: string, value: number | undefined, range: SettingRange): void => {
  if (value !== undefined && !isInRange(value, range)) {
    throw new Error(`${field} must be ${describeRange(range)} (got ${value}).`);
  }
};

/** What a declared webhook subscription has in common, classic or of a namespace topic. */
export interface DeclaredWebhookProps {
  /**
   * The webhook's HTTPS URL; it must answer the validation handshake. Give this or
   * `destination`.
   */
  readonly endpointUrl?: string;
  /**
   * An AWS resource to deliver to instead of a webhook (`Destination.sqs(queue)`...): the
   * delivery function is granted to send to it, and the stack allows it.
   */
  readonly destination?: DeclaredDestination;
  readonly includedEventTypes?: readonly string[];
  readonly subjectBeginsWith?: string;
  readonly subjectEndsWith?: string;
  readonly maxEventsPerBatch?: number;
  readonly preferredBatchSizeInKilobytes?: number;
  /**
   * Whether the deployment waits for the endpoint to agree to receive (the validation handshake):
   * - `'async'` (default): the subscription is created and the deployment goes on; the endpoint
   *   is asked at once and, while it has not agreed, receives nothing. The outcome shows in the
   *   subscription's `provisioningState` (`gridwire subscription show`), in `gridwire health`,
   *   and, when the endpoint refuses or can't be reached, in the `EndpointValidationFailCount`
   *   metric and the `endpointValidationFailed` alarm. An endpoint that is not there yet can be
   *   validated later through its validation URL, or by deploying again with a change.
   * - `'wait'`: the subscription is reported created only once its endpoint agreed; one that has
   *   not by `validationWaitSeconds` fails the deployment (and a first create rolls back).
   */
  readonly validation?: DeclaredValidationMode;
  /**
   * With `validation: 'wait'`, seconds the deployment waits for the endpoint to agree (default
   * {@link VALIDATION_WAIT_SECONDS}, at most {@link MAX_VALIDATION_WAIT_SECONDS}).
   */
  readonly validationWaitSeconds?: number;
  /**
   * Requests per second the endpoint is sent at most, across all workers (1 to 10,000; a batch is
   * one request); the rest are held, not failed. Default: no limit of its own.
   */
  readonly maxDeliveriesPerSecond?: number;
  /**
   * Sign every delivery (Standard Webhooks) with a secret the stack generates: `true` or `'v1'`
   * (HMAC-SHA256), `'v1a'` (an Ed25519 key: receivers verify with its public key). Read it with
   * `gridwire subscription signing-secret` or the admin API's `getSigningSecret`. A secret never
   * appears in the template.
   */
  readonly signing?: boolean | 'v1' | 'v1a';
  /**
   * The subscription's own retry schedule, the last step repeating (each 10 s to 12 h, at most
   * 30 steps, 10 for namespace subscriptions). Default: the profile's schedule.
   */
  readonly retrySchedule?: readonly Duration[];
  /**
   * Disable the subscription, with a `Gridwire.SubscriptionDisabled` notice, once its endpoint has
   * failed every attempt this long (1 hour to 30 days), or `'never'`. Default 5 days.
   */
  readonly disableAfterFailingFor?: Duration | 'never';
  /** What the message log keeps: `Failures` (default) or `All` deliveries. */
  readonly deliveryLog?: 'Failures' | 'All';
  /**
   * Credentials on every request (and on the validation handshake): an OAuth 2.0 client (its
   * secret read from Secrets Manager by the management function when the subscription is put,
   * never in the template), or SigV4 with the delivery function's own role.
   */
  readonly auth?: DeclaredEndpointAuth;
}

/** How a declared subscription's requests authenticate to its endpoint. */
export type DeclaredEndpointAuth =
  | {
      readonly type: 'OAuth2ClientCredentials';
      readonly tokenUrl: string;
      readonly clientId: string;
      /** The client secret's text; the management function is granted to read it. */
      readonly clientSecret: ISecret;
      readonly scope?: string;
    }
  | { readonly type: 'AwsSigV4'; readonly service: 'execute-api' | 'lambda'; readonly region?: string };

/** The auth as the admin API's body names it, without the client secret (set from its ARN on deploy). */
const authBody = (auth: DeclaredEndpointAuth) =>
  auth.type === 'AwsSigV4'
    ? { ...auth }
    : {
        type: auth.type,
        tokenUrl: auth.tokenUrl,
        clientId: auth.clientId,
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
      };

/**
 * The settings of `props` beyond the original's: the retry schedule (whose place in the body
 * differs between classic and namespace subscriptions) and the subscription-level properties,
 * each checked as the admin API checks it, so a mistake fails the synth naming the prop.
 */
export function webhookSettingsOf(
  props: DeclaredWebhookProps,
  profile: DeliveryProfile,
): { retrySchedule?: string[]; properties: Record<string, unknown> } {
  const retrySchedule = props.retrySchedule?.map((step) => step.toIsoString());
  if (retrySchedule !== undefined) {
    const parsed = retryScheduleSchema(profile).safeParse(retrySchedule);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `retrySchedule${issue?.path.map((part) => `[${String(part)}]`).join('') ?? ''} ${issue?.message}.`,
      );
    }
  }
  const disableAfter =
    props.disableAfterFailingFor === undefined
      ? undefined
      : props.disableAfterFailingFor === 'never'
        ? null
        : props.disableAfterFailingFor.toIsoString();
  if (typeof disableAfter === 'string' && !disableAfterSchema.safeParse(disableAfter).success) {
    throw new Error(
      `disableAfterFailingFor must be from 1 hour to 30 days, or 'never' (got ${disableAfter}).`,
    );
  }
  return {
    ...(retrySchedule === undefined ? {} : { retrySchedule }),
    properties: {
      ...(disableAfter === undefined ? {} : { disableAfterFailingFor: disableAfter }),
      ...(props.deliveryLog === undefined ? {} : { deliveryLog: props.deliveryLog }),
    },
  };
}

/** The webhook destination of a declared subscription, as the admin API's body names it. */
export function webhookDestinationBody(props: DeclaredWebhookProps) {
  checkRange('maxDeliveriesPerSecond', props.maxDeliveriesPerSecond, { ...RATE_LIMITS, integer: true });
  // What both kinds of destination take: output batching and a rate limit.
  const batching = {
    ...(props.maxEventsPerBatch === undefined ? {} : { maxEventsPerBatch: props.maxEventsPerBatch }),
    ...(props.preferredBatchSizeInKilobytes === undefined
      ? {}
      : { preferredBatchSizeInKilobytes: props.preferredBatchSizeInKilobytes }),
    ...(props.maxDeliveriesPerSecond === undefined
      ? {}
      : { maxDeliveriesPerSecond: props.maxDeliveriesPerSecond }),
  };
  if ((props.endpointUrl === undefined) === (props.destination === undefined)) {
    throw new Error(
      'A declared subscription needs endpointUrl (a webhook) or destination (an AWS resource), one of the two.',
    );
  }
  if (props.destination !== undefined) {
    const webhookOnly = [
      props.signing === undefined ? undefined : 'signing',
      props.auth === undefined ? undefined : 'auth',
    ].filter((name) => name !== undefined);
    if (webhookOnly.length > 0) {
      throw new Error(`${webhookOnly.join(' and ')}: for webhooks only, not an AWS resource destination.`);
    }
    return {
      endpointType: props.destination.endpointType,
      properties: {
        resourceArn: props.destination.resourceArn,
        ...props.destination.properties,
        ...batching,
      },
    };
  }
  return {
    endpointType: 'WebHook',
    properties: {
      endpointUrl: props.endpointUrl,
      ...(props.signing === undefined || props.signing === false
        ? {}
        : { signing: { generate: true, ...(props.signing === 'v1a' ? { scheme: 'v1a' } : {}) } }),
      ...(props.auth === undefined ? {} : { auth: authBody(props.auth) }),
      ...batching,
    },
  };
}

/** The event type and subject filter of a declared subscription; `undefined` when it has none. */
export function filterBody(props: DeclaredWebhookProps): Record<string, unknown> | undefined {
  const filter = {
    ...(props.includedEventTypes === undefined ? {} : { includedEventTypes: [...props.includedEventTypes] }),
    ...(props.subjectBeginsWith === undefined ? {} : { subjectBeginsWith: props.subjectBeginsWith }),
    ...(props.subjectEndsWith === undefined ? {} : { subjectEndsWith: props.subjectEndsWith }),
  };
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/**
 * The properties that say whether a declared subscription's deployment waits for its endpoint,
 * and how long (checked first).
 */
export function validationWaitOf(props: DeclaredWebhookProps): Record<string, string> {
  const mode = props.validation ?? DEFAULT_DECLARED_VALIDATION;
  if (!DECLARED_VALIDATION_MODES.includes(mode)) {
    throw new Error(
      `validation must be ${DECLARED_VALIDATION_MODES.map((value) => `'${value}'`).join(' or ')} (got ${String(mode)}).`,
    );
  }
  if (mode === 'async') {
    if (props.validationWaitSeconds !== undefined) {
      throw new Error(
        "validationWaitSeconds applies only with validation: 'wait' (the deployment does not wait for the endpoint otherwise).",
      );
    }
    return { Validation: mode };
  }
  checkRange('validationWaitSeconds', props.validationWaitSeconds, {
    min: 0,
    max: MAX_VALIDATION_WAIT_SECONDS,
    integer: true,
  });
  return {
    Validation: mode,
    ValidationWaitSeconds: String(props.validationWaitSeconds ?? VALIDATION_WAIT_SECONDS),
  };
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
    this.resource = declarations.resource(
      this,
      'Resource',
      'Topic',
      { Topic: topicName },
      {
        properties: {
          inputSchema: props.inputSchema ?? 'EventGridSchema',
          ...(props.tags === undefined ? {} : { tags: props.tags }),
          ...props.properties,
        },
      },
    );
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
    const settings = webhookSettingsOf(props, TOPIC_PROFILE);
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
        ...(props.labels === undefined ? {} : { labels: [...props.labels] }),
        ...settings.properties,
        ...props.properties,
      },
    };
    const resource = this.declarations.resource(
      this,
      `Subscription${name}`,
      'Subscription',
      { Topic: this.topicName, Subscription: name },
      body,
      { ...wait, ...this.declarations.authProperties(props.auth) },
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
