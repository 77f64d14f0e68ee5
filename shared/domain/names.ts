/**
 * Names and their rules: which topic and subscription names exist at all, and the resource ids
 * derived from them. Pure: publish and management both use these.
 */

export const NAME_RULES = {
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
