/**
 * What the held-for-a-day bench (`held.ts`) publishes: jobs of `eventsPerJob` events of
 * {@link EVENT_BYTES} each, one at the start or a stream of them spread evenly over the hours
 * asked for, and where each went (the delivery queue, or a held subscription's backlog).
 */
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import { EVENT_BYTES, type HeldOptions } from './held-settings';
import { queuedItem } from './virtual-queue';

const H = 3600 * 1000;

export class HeldPublishes {
  /** Jobs to publish in all. */
  readonly jobs: number;
  /** Jobs published so far, and those of them sent straight to the backlog. */
  published = 0;
  heldPublished = 0;
  private readonly everyMs: number;
  private eventSeq = 0;

  constructor(
    private readonly options: HeldOptions,
    private readonly t0: number,
  ) {
    const events = options.streamEvents ?? options.eventsPerJob;
    this.jobs = Math.max(1, Math.round(events / options.eventsPerJob));
    this.everyMs = this.jobs === 1 ? 0 : ((options.streamHours ?? 24) * H) / this.jobs;
  }

  /** Events in all: every job's. */
  get events(): number {
    return this.jobs * this.options.eventsPerJob;
  }

  /** When the next job is published; `undefined` once every job is. */
  nextAt(): number | undefined {
    return this.published < this.jobs ? this.t0 + Math.floor(this.published * this.everyMs) : undefined;
  }

  /** The next job's events, published at `publishedAt`, as queued items. */
  items(publishedAt: number): DeliveryItem[] {
    return Array.from({ length: this.options.eventsPerJob }, () => {
      const id = `held-${this.eventSeq}`;
      this.eventSeq += 1;
      const event: EventGridEvent = {
        id,
        topic: '/gridwire/topics/held',
        subject: id,
        eventType: 'Bench.Held',
        eventTime: new Date(publishedAt).toISOString(),
        data: { pad: '' },
        dataVersion: '',
        metadataVersion: '1',
      };
      const bare = Buffer.byteLength(JSON.stringify(event), 'utf8');
      event.data = { pad: 'x'.repeat(Math.max(0, EVENT_BYTES - bare)) };
      return queuedItem(event, publishedAt);
    });
  }
}
