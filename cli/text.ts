/** `1 blob`, `2 blobs`: a count with its noun. */
export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
