/**
 * The operator side of dead letters: list a subscription's dead-letter blobs, show one, and
 * replay their events to the subscription as new deliveries.
 *
 * The HTTP layer (`dead-letter-routes.ts`) finds the subscription and hands it over with the
 * parsed request; everything here works on injected ports (the bucket, the delivery queue, a
 * clock, an id source), and the parsing and selection rules are pure functions. Records and
 * events stay JSON text from the blob to the queue (`platform/json-text.ts`): nothing is parsed
 * and written again, so an event is replayed exactly as it was dead-lettered, big numbers
 * included.
 *
 * By concern: `replay-request.ts` parses what the caller sends; `place.ts`, `records.ts` and
 * `ownership.ts` say where a subscription's blobs are, what their records hold and which blobs
 * are its own; `replay-plan.ts` selects blobs and records, `markers.ts` says what a replay
 * marker covers, `replay.ts` queues and marks, `report.ts` sums up; `service.ts` is what the
 * routes call and `documents.ts` how they answer.
 */
export { BLOB_CONCURRENCY, type DeadLetterBlobs, type DeadLetterServiceDeps } from './deps';
export { blobDocumentText, listDocument, replayDocument } from './documents';
export { blobOfTopic } from './ownership';
export {
  bucketOfPlace,
  checkDeadLetterBucket,
  checkKey,
  type DeadLetterPlace,
  deadLetterPlace,
  isBlobKey,
} from './place';
export {
  blobRecords,
  matchingRecords,
  recordOfTopic,
  recordReason,
  recordTopic,
  replayItem,
} from './records';
export { MAX_REPLAY_BLOBS } from './replay-plan';
export {
  MAX_REPLAY_KEYS,
  parseReasons,
  parseReplayRequest,
  parseTime,
  parseWindow,
  type ReplayRequest,
  type TimeWindow,
} from './replay-request';
export type { BlobReplay, ReplayReport } from './report';
export {
  DEAD_LETTER_PAGE_SIZE,
  type DeadLetterBlobContent,
  type DeadLetterEntry,
  type DeadLetterPage,
  type DeadLetterPageRequest,
  DeadLetterService,
} from './service';
