/** A start-up problem the user can fix (port taken, data directory unusable). */
export class LocalStackError extends Error {
  override readonly name = 'LocalStackError';
}
