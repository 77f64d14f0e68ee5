/**
 * Namespaces, their topics and push subscriptions declared in code, as classic topics are
 * (`declared-resources.ts`): `pipeline.addNamespace('shop').addTopic('orders')
 * .addSubscription('billing', { endpointUrl })`. Each is a custom resource the management
 * function carries out with the admin API's namespace operations; the namespace's keys are made
 * by the API and never appear in the template.
 */
import type { CustomResource } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { NAMESPACE_PROFILE } from '../shared/delivery/rules/profiles';
import { NAMESPACE_TOPIC_LIMITS } from '../shared/management/namespace-schema';
import { isoDurationOf } from '../shared/platform/iso-duration';
import {
  archiveBody,
  checkName,
  checkRange,
  type DeclaredEventTypeProps,
  type DeclaredWebhookProps,
  deduplicationWindowBody,
  eventValidationBody,
  filterBody,
  validationWaitOf,
  webhookDestinationBody,
  webhookSettingsOf,
} from './declared-bodies';
import type { DeclaredResources } from './declared-resources';

/** A declared namespace. */
export interface DeclaredNamespaceProps {
  readonly tags?: Readonly<Record<string, string>>;
}

/** A declared namespace topic (CloudEvents 1.0 in, as every namespace topic). */
export interface DeclaredNamespaceTopicProps {
  /** 1 to 7 days (default 1): the longest an event's subscriptions may keep trying it. */
  readonly eventRetentionInDays?: number;
  /**
   * Minutes a publish of an event whose id the topic already accepted is answered 200 but not
   * delivered again: 0 (off, the default) to 1440, as for a classic topic.
   */
  readonly deduplicationWindowInMinutes?: number;
  /**
   * Keep every event the topic accepts in the archive bucket for `retentionInDays` (1 to 365;
   * default the topic's `eventRetentionInDays`). Default: no archive (removing the prop turns it
   * off).
   */
  readonly archive?: { readonly retentionInDays?: number };
  /** As a classic topic's: events checked against the topic's event catalog (`addEventType`); default false. */
  readonly validateEvents?: boolean;
  /** As a classic topic's: `allow` (default) or `reject` events of types the catalog does not list. */
  readonly unknownEventTypes?: 'allow' | 'reject';
}

/** A declared push subscription of a namespace topic, delivered to a webhook. */
export interface DeclaredNamespaceSubscriptionProps extends DeclaredWebhookProps {
  /** 1 to 10 (default 10), as the `namespace` profile allows (`maxDeliveryCount`). */
  readonly maxDeliveryCount?: number;
  /**
   * Minutes an event is tried (`eventTimeToLive`), at most the topic's retention; default the
   * profile's default within that retention.
   */
  readonly eventTimeToLiveInMinutes?: number;
  /**
   * Further subscription properties (`filtersConfiguration` members such as `filters`, the
   * push settings' `deadLetterDestinationWithResourceIdentity`), merged into the push settings
   * (`push`) and the filter (`filtersConfiguration`) as the admin API's body names them.
   */
  readonly push?: Readonly<Record<string, unknown>>;
  readonly filtersConfiguration?: Readonly<Record<string, unknown>>;
}

const LIMITS = NAMESPACE_PROFILE.limits;

/** A namespace declared in code; `addTopic` declares its topics. */
export class DeclaredNamespace extends Construct {
  readonly resource: CustomResource;

  constructor(
    scope: Construct,
    id: string,
    private readonly declarations: DeclaredResources,
    readonly namespaceName: string,
    props: DeclaredNamespaceProps = {},
  ) {
    super(scope, id);
    checkName('namespace', namespaceName);
    this.resource = declarations.resource(
      this,
      'Resource',
      'Namespace',
      { Namespace: namespaceName },
      props.tags === undefined ? {} : { tags: props.tags },
    );
  }

  /** Declares a topic of this namespace. */
  addTopic(name: string, props: DeclaredNamespaceTopicProps = {}): DeclaredNamespaceTopic {
    return new DeclaredNamespaceTopic(this, `Topic${name}`, this.declarations, this, name, props);
  }
}

/** A namespace topic declared in code; `addSubscription` declares its push subscriptions. */
export class DeclaredNamespaceTopic extends Construct {
  readonly resource: CustomResource;

  constructor(
    scope: Construct,
    id: string,
    private readonly declarations: DeclaredResources,
    private readonly namespace: DeclaredNamespace,
    readonly topicName: string,
    props: DeclaredNamespaceTopicProps = {},
  ) {
    super(scope, id);
    checkName('topic', topicName);
    checkRange('eventRetentionInDays', props.eventRetentionInDays, {
      ...NAMESPACE_TOPIC_LIMITS.eventRetentionInDays,
      integer: true,
    });
    const properties = {
      ...(props.eventRetentionInDays === undefined
        ? {}
        : { eventRetentionInDays: props.eventRetentionInDays }),
      ...deduplicationWindowBody(props.deduplicationWindowInMinutes),
      ...archiveBody(props.archive, false),
      ...eventValidationBody(props.validateEvents, props.unknownEventTypes),
    };
    this.resource = declarations.resource(
      this,
      'Resource',
      'NamespaceTopic',
      { Namespace: namespace.namespaceName, Topic: topicName },
      Object.keys(properties).length === 0 ? {} : { properties },
    );
    // Created after its namespace, deleted before it.
    this.resource.node.addDependency(namespace.resource);
  }

  /**
   * Declares an event type of this topic's catalog, as a classic topic's `addEventType` does.
   */
  addEventType(props: DeclaredEventTypeProps): CustomResource {
    return this.declarations.eventType(
      this,
      this.resource,
      'NamespaceEventType',
      { Namespace: this.namespace.namespaceName, Topic: this.topicName },
      props,
    );
  }

  /** Declares a push subscription of this topic to a webhook. */
  addSubscription(name: string, props: DeclaredNamespaceSubscriptionProps): CustomResource {
    checkName('subscription', name);
    checkRange('maxDeliveryCount', props.maxDeliveryCount, { ...LIMITS.maxDeliveryAttempts, integer: true });
    checkRange('eventTimeToLiveInMinutes', props.eventTimeToLiveInMinutes, {
      ...LIMITS.eventTimeToLiveInMinutes,
      integer: true,
    });
    const wait = validationWaitOf(props);
    const filter = { ...filterBody(props), ...props.filtersConfiguration };
    const settings = webhookSettingsOf(props, NAMESPACE_PROFILE);
    const deadLetterDestination = this.declarations.deadLetterDestination(
      props.deadLetter,
      props.push?.deadLetterDestinationWithResourceIdentity === undefined
        ? undefined
        : 'push.deadLetterDestinationWithResourceIdentity',
    );
    const body = {
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            destination: webhookDestinationBody(props),
            ...(props.maxDeliveryCount === undefined ? {} : { maxDeliveryCount: props.maxDeliveryCount }),
            ...(props.eventTimeToLiveInMinutes === undefined
              ? {}
              : { eventTimeToLive: isoDurationOf(props.eventTimeToLiveInMinutes) }),
            ...(settings.retrySchedule === undefined ? {} : { retrySchedule: settings.retrySchedule }),
            ...(deadLetterDestination === undefined
              ? {}
              : { deadLetterDestinationWithResourceIdentity: { deadLetterDestination } }),
            ...props.push,
          },
        },
        ...(Object.keys(filter).length === 0 ? {} : { filtersConfiguration: filter }),
        ...settings.properties,
      },
    };
    const resource = this.declarations.resource(
      this,
      `Subscription${name}`,
      'NamespaceSubscription',
      { Namespace: this.namespace.namespaceName, Topic: this.topicName, Subscription: name },
      body,
      {
        ...wait,
        ...this.declarations.authProperties(props.auth),
        ...this.declarations.tlsProperties(props.tls),
      },
    );
    this.declarations.allowDestination(props.destination, resource);
    resource.node.addDependency(this.resource);
    return resource;
  }
}
