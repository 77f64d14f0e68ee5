/**
 * A `--source` of `gridwire start`, as given and checked (`local/sources.ts` provisions and polls
 * it): in a module of its own, without the AWS SDK, so the command line's start-up stays light.
 */

import type { SourceFormat } from '../shared/config/sources';
import { isValidName } from '../shared/domain/names';

/** A source as `--source` gives it. */
export interface LocalSourceSpec {
  kind: 'sqs' | 'eventBridge';
  /** The queue's name (`sqs:`), or the source's (`eventbridge:`). */
  name: string;
  topic: string;
  format: SourceFormat;
}

/** An SQS queue name: letters, digits, `-` and `_`, at most 80 characters. */
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** The queue of an `eventbridge:` source. */
export const eventBridgeQueueName = (name: string): string => `gridwire-source-${name}`;

const USAGE = 'give it as sqs:<queue>=<topic>[:eventBridge] or eventbridge:<name>=<topic>';

/** Reads one `--source` value; an `Error` naming what is wrong. */
export function parseSourceArgument(value: string): LocalSourceSpec {
  const match = /^(sqs|eventbridge):([^=]+)=([^:]+)(?::(.+))?$/i.exec(value.trim());
  if (match === null) throw new Error(`'${value}': ${USAGE}`);
  const [, kind = '', name = '', topic = '', format] = match;
  const eventBridge = kind.toLowerCase() === 'eventbridge';
  if (eventBridge && format !== undefined) {
    throw new Error(`'${value}': an eventbridge source's messages are EventBridge events already; ${USAGE}`);
  }
  if (format !== undefined && format !== 'eventBridge' && format !== 'topic') {
    throw new Error(`'${value}': the format is topic (the default) or eventBridge, not '${format}'`);
  }
  const queue = eventBridge ? eventBridgeQueueName(name) : name;
  if (!QUEUE_NAME.test(queue)) {
    throw new Error(`'${value}': '${queue}' is not an SQS queue name (letters, digits, - and _, at most 80)`);
  }
  if (!isValidName('topic', topic)) throw new Error(`'${value}': '${topic}' is not a topic name`);
  return {
    kind: eventBridge ? 'eventBridge' : 'sqs',
    name,
    topic,
    format: eventBridge ? 'eventBridge' : ((format as SourceFormat | undefined) ?? 'topic'),
  };
}
