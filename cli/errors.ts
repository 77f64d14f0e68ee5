/** A problem the user can fix (wrong option, nothing running): printed without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/**
 * Turns AWS answers that are about the user's setup (no credentials, access denied, no such
 * queue) into a `CliError` that says what was being done; anything else is passed on unchanged.
 */
export function explainAwsError(error: unknown, doing: string): unknown {
  if (!(error instanceof Error)) return error;
  const fromService = '$metadata' in error;
  const setup = ['CredentialsProviderError', 'TokenProviderError'].includes(error.name);
  if (!fromService && !setup) return error;
  return new CliError(`${doing} failed: ${error.name}: ${error.message}`);
}
