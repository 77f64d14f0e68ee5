/** Listings, blobs and replay reports as the API answers them (times in ISO 8601). */
import type { ReplayReport } from './report';
import type { DeadLetterBlobContent, DeadLetterEntry } from './service';

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/**
 * A listing page as the API answers it: `{"value":[{key, writtenAt, bytes, replayedAt?}],
 * "nextPage"?}`, `nextPage` (an ISO time, for `?page=`) when older blobs may follow.
 */
export const listDocument = (entries: readonly DeadLetterEntry[], nextPage?: number) => ({
  value: entries.map((entry) => ({
    key: entry.key,
    writtenAt: iso(entry.writtenAt),
    bytes: entry.bytes,
    ...(entry.replayedAt === undefined ? {} : { replayedAt: iso(entry.replayedAt) }),
  })),
  ...(nextPage === undefined ? {} : { nextPage: iso(nextPage) }),
});

/**
 * A blob as the API answers it, written by hand so each record is its stored text exactly:
 * `{"key":..,"replayedAt":..,"records":[..]}`.
 */
export const blobDocumentText = (blob: DeadLetterBlobContent): string =>
  `{"key":${JSON.stringify(blob.key)}${
    blob.replayedAt === undefined ? '' : `,"replayedAt":${JSON.stringify(iso(blob.replayedAt))}`
  },"records":[${blob.records.join(',')}]}`;

/** A replay report as the API answers it (times in ISO). */
export const replayDocument = (report: ReplayReport) => ({
  ...report,
  blobs: report.blobs.map(({ replayedAt, ...blob }) => ({
    ...blob,
    ...(replayedAt === undefined ? {} : { replayedAt: iso(replayedAt) }),
  })),
});
