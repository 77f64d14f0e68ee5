/** `gridwire deadletters`: the command (`command.ts`) and what it is made of, for its callers and tests. */

export type { SubscriptionRef } from '../admin-api';
export {
  type BlobReplayAnswer,
  callReplay,
  type DeadLetterBlobText,
  type DeadLetterListing,
  type DeadLetterListingPage,
  listDeadLetterPage,
  listDeadLetters,
  type ReplayAnswer,
  showDeadLetters,
} from './api';
export { deadLettersCommand, terminalIo } from './command';
export { formatBlob, formatListing, indentJson, MAX_INDENTED_CHARS } from './format';
export {
  DEFAULT_REPLAY_RATE,
  type ReplayIo,
  type ReplayOptions,
  type ReplaySummary,
  replayDeadLetters,
} from './replay';
