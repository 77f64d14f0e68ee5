/** `gridwire parked`: the command (`command.ts`) and what it is made of, for its callers and tests. */
export { parkedCommand } from './command';
export { formatList, formatRedrive } from './format';
export {
  describeMessage,
  EVENT_IDS_SHOWN,
  type ParkedJob,
  type ParkedMessage,
  summarizeJob,
} from './messages';
export {
  DEFAULT_LIST_LIMIT,
  type ListOptions,
  listParked,
  type ParkedQueueReport,
  PEEK_VISIBILITY_SECONDS,
} from './peek';
export {
  REDRIVE_VISIBILITY_SECONDS,
  type RedriveOptions,
  type RedriveResult,
  redriveParked,
} from './redrive';
export type { ReadOptions } from './sqs';
