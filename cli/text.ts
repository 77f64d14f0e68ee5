/** `1 blob`, `2 blobs`: a count with its noun. */
export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What a listing of a topic's subscriptions says when it has none. */
export const noSubscriptions = (ref: { topic: string; namespace?: string }): string =>
  `Topic ${ref.topic}${ref.namespace === undefined ? '' : ` of namespace ${ref.namespace}`} has no event subscriptions.`;
