/**
 * Names and their rules: which topic and subscription names exist at all, and the resource ids
 * derived from them. Pure: publish and management both use these.
 */

export const NAME_RULES = {
  /** Namespace topics and their subscriptions follow the `topic` and `subscription` rules. */
  namespace: { min: 3, max: 50, pattern: /^[A-Za-z0-9-]+$/ },
  topic: { min: 3, max: 50, pattern: /^[A-Za-z0-9-]+$/ },
  subscription: { min: 3, max: 64, pattern: /^[A-Za-z0-9-]+$/ },
} as const;

export type NameKind = keyof typeof NAME_RULES;

export function isValidName(kind: NameKind, name: string): boolean {
  const rule = NAME_RULES[kind];
  return name.length >= rule.min && name.length <= rule.max && rule.pattern.test(name);
}

/** The resource id stamped into each event's `topic` field and shown by the management API. */
export const topicResourceId = (topicName: string): string => `/gridwire/topics/${topicName}`;

/**
 * The topic identity of a namespace topic where subscriptions and delivery jobs name a topic
 * (`Subscription.topic`): `<namespace>/<topic>`. Classic topic names hold no `/`, so the two
 * kinds can never collide, and the same table keys, subscription reads and health items serve
 * both.
 */
export const namespaceTopicId = (namespace: string, topic: string): string => `${namespace}/${topic}`;

/** The namespace and topic of a {@link namespaceTopicId}; `undefined` for a classic topic name. */
export function splitNamespaceTopicId(topicId: string): { namespace: string; topic: string } | undefined {
  const slash = topicId.indexOf('/');
  if (slash < 0) return undefined;
  return { namespace: topicId.slice(0, slash), topic: topicId.slice(slash + 1) };
}

/** A topic by identity (`TopicRef` in `delivery.ts`): a namespace topic has its namespace. */
interface TopicIdentity {
  readonly namespace?: string;
  readonly name: string;
}

/** The one text storage and the attempt history name a topic by: its name, or `<namespace>/<topic>`. */
export const topicIdOf = (topic: TopicIdentity): string =>
  topic.namespace === undefined ? topic.name : namespaceTopicId(topic.namespace, topic.name);

/** The topic a {@link topicIdOf} text names. */
export function topicRefOf(topicId: string): { namespace?: string; name: string } {
  const parts = splitNamespaceTopicId(topicId);
  return parts === undefined ? { name: topicId } : { namespace: parts.namespace, name: parts.topic };
}

/** The resource id of a namespace, as the management API shows it. */
export const namespaceResourceId = (namespace: string): string => `/gridwire/namespaces/${namespace}`;

/** The resource id of a namespace topic, as the management API shows it. */
export const namespaceTopicResourceId = (namespace: string, topic: string): string =>
  `${namespaceResourceId(namespace)}/topics/${topic}`;
