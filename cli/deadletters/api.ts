/**
 * The management API's dead-letter routes of one subscription
 * (`/admin/topics/{topic}/eventSubscriptions/{subscription}/deadLetters...`, or with
 * `--namespace` those of a namespace topic's subscription), called through `admin-api.ts`.
 */
import type { BlobReplay, ReplayReport } from '../../shared/management/dead-letters';
import { arrayElements, objectMembers } from '../../shared/platform/json-text';
import {
  type ApiTarget,
  type JsonBody,
  okData,
  type SubscriptionRef,
  type SubscriptionRoute,
  subscriptionLabel,
  subscriptionRoute,
} from '../admin-api';

const named = subscriptionLabel;

/** A blob as the API lists it (times in ISO 8601). */
export interface DeadLetterListing {
  key: string;
  writtenAt: string;
  bytes: number;
  replayedAt?: string;
}

/** One page of a listing, and the token of the next when older blobs may follow. */
export interface DeadLetterListingPage {
  blobs: DeadLetterListing[];
  nextPage?: string;
}

/**
 * One page of the subscription's dead-letter blobs written in [since, until), newest first (whole
 * hour folders, at least 100 blobs when there are); `page` is a `nextPage` answered before.
 */
export async function listDeadLetterPage(
  target: ApiTarget,
  options: SubscriptionRef & { since?: string; until?: string; page?: string },
): Promise<DeadLetterListingPage> {
  const { value, nextPage } = okData(
    await target.client.GET(subscriptionRoute(options, '/deadLetters'), {
      params: {
        path: options,
        query: { since: options.since, until: options.until, page: options.page },
      },
    }),
    `listing the dead letters of ${named(options)}`,
  );
  return { blobs: value, ...(nextPage === undefined ? {} : { nextPage }) };
}

/** Every dead-letter blob of the subscription written in [since, until), newest first, page by page. */
export async function listDeadLetters(
  target: ApiTarget,
  options: SubscriptionRef & { since?: string; until?: string },
): Promise<DeadLetterListing[]> {
  const blobs: DeadLetterListing[] = [];
  let page: string | undefined;
  do {
    const listed = await listDeadLetterPage(target, { ...options, ...(page === undefined ? {} : { page }) });
    blobs.push(...listed.blobs);
    page = listed.nextPage;
  } while (page !== undefined);
  return blobs;
}

/** One blob: its records, each as the JSON text stored. */
export interface DeadLetterBlobText {
  key: string;
  replayedAt?: string;
  records: string[];
}

/** One blob's records; the records stay the exact text the API answered. */
export async function showDeadLetters(
  target: ApiTarget,
  options: SubscriptionRef & { key: string },
): Promise<DeadLetterBlobText> {
  const text = okData(
    // As text: the records are kept as the API wrote them, not parsed and written again.
    await target.client.GET(subscriptionRoute(options, '/deadLetters/blob'), {
      params: { path: options, query: { key: options.key } },
      parseAs: 'text',
    }),
    `reading the dead-letter blob ${options.key}`,
  );
  const members = new Map(objectMembers(text).map((member) => [member.name, member.value]));
  const replayedAt = members.get('replayedAt');
  return {
    key: JSON.parse(members.get('key') ?? '""') as string,
    ...(replayedAt === undefined ? {} : { replayedAt: JSON.parse(replayedAt) as string }),
    records: arrayElements(members.get('records') ?? '[]'),
  };
}

/** What the replay route says about one blob: the service's per-blob result, times as ISO strings. */
export type BlobReplayAnswer = Omit<BlobReplay, 'replayedAt'> & { replayedAt?: string };

/** The replay route's answer: the service's report, with times as ISO strings. */
export type ReplayAnswer = Omit<ReplayReport, 'blobs'> & { blobs: BlobReplayAnswer[] };

/**
 * One call of the replay route, or, when the route's per-subscription limit refused it (a `429`),
 * how many seconds its `Retry-After` asks to wait before calling again.
 */
export async function callReplayOrWait(
  target: ApiTarget,
  ref: SubscriptionRef,
  body: Parameters<typeof callReplay>[2],
): Promise<{ answer: ReplayAnswer } | { retryAfterSeconds: number }> {
  const result = await replayCall(target, ref, body);
  if (result.response.status === 429) {
    const seconds = Number(result.response.headers.get('retry-after'));
    return { retryAfterSeconds: Number.isFinite(seconds) && seconds > 0 ? seconds : 1 };
  }
  return { answer: okData(result, `replaying dead letters of ${named(ref)}`) };
}

/** One call of the replay route (`POST .../deadLetters/replay`). */
export async function callReplay(
  target: ApiTarget,
  ref: SubscriptionRef,
  body: {
    since?: string;
    until?: string;
    keys?: string[];
    reason?: string[];
    dryRun?: boolean;
    force?: boolean;
  },
): Promise<ReplayAnswer> {
  return okData(await replayCall(target, ref, body), `replaying dead letters of ${named(ref)}`);
}

/** `POST .../deadLetters/replay` with `body`. */
const replayCall = (target: ApiTarget, ref: SubscriptionRef, body: Parameters<typeof callReplay>[2]) =>
  target.client.POST(subscriptionRoute(ref, '/deadLetters/replay'), {
    params: { path: ref },
    // `reason` holds the reasons `--reason` takes (`DEAD_LETTER_REASONS`), as plain strings here.
    body: body as JsonBody<SubscriptionRoute<'/deadLetters/replay'>, 'post'>,
  });
