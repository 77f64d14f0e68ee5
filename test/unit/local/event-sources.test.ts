import { checkEventSourceOptions, localConsumerOf } from '../../../local/event-sources';
import { LocalStackError } from '../../../local/stack-error';

describe('local event sources', () => {
  it("emulate the delivery queue's window (none, batches of 10 by default), or the one given", () => {
    expect(localConsumerOf('delivery', {})).toEqual({ batchSize: 10, batchingWindowMs: 0 });
    expect(localConsumerOf('delivery', { deliveryBatchingWindow: { seconds: 1 } })).toEqual({
      batchSize: 10,
      batchingWindowMs: 1000,
    });
    expect(localConsumerOf('delivery', { deliveryBatchingWindow: { seconds: 5, batchSize: 50 } })).toEqual({
      batchSize: 50,
      batchingWindowMs: 5000,
    });
  });

  it("keep the backlog and ended-delivery queues' long windows off unless asked for", () => {
    expect(localConsumerOf('backlog', {})).toEqual({ batchSize: 10, batchingWindowMs: 0 });
    expect(localConsumerOf('endedDelivery', {})).toEqual({ batchSize: 10, batchingWindowMs: 0 });
    expect(localConsumerOf('retry', {})).toEqual({ batchSize: 10, batchingWindowMs: 0 });
    expect(localConsumerOf('backlog', { emulateAllBatchingWindows: true })).toEqual({
      batchSize: 10_000,
      batchingWindowMs: 60_000,
    });
    expect(localConsumerOf('endedDelivery', { emulateAllBatchingWindows: true })).toEqual({
      batchSize: 100,
      batchingWindowMs: 300_000,
    });
  });

  it("give the ordered (FIFO) queue's poller its batch of 10 and never a window, as Lambda", () => {
    expect(localConsumerOf('ordered', {})).toEqual({ batchSize: 10, batchingWindowMs: 0, fifo: true });
    expect(localConsumerOf('ordered', { emulateAllBatchingWindows: true })).toEqual({
      batchSize: 10,
      batchingWindowMs: 0,
      fifo: true,
    });
    expect(localConsumerOf('delivery', {})).not.toHaveProperty('fifo');
  });

  it('refuse a delivery window the construct would refuse, naming the field and the limit', () => {
    expect(() => checkEventSourceOptions({ deliveryBatchingWindow: { seconds: 0, batchSize: 50 } })).toThrow(
      new LocalStackError(
        'Invalid local stack setting: deliveryBatchingWindow.batchSize must be at most 10 when deliveryBatchingWindow.seconds is 0 (got 50)',
      ),
    );
    expect(() => checkEventSourceOptions({ deliveryBatchingWindow: { seconds: 301 } })).toThrow(
      /deliveryBatchingWindow.seconds must be an integer from 0 to 300 \(got 301\)/,
    );
    expect(() =>
      checkEventSourceOptions({ deliveryBatchingWindow: { seconds: 1, batchSize: 100 } }),
    ).not.toThrow();
  });

  it("refuse a receive wait SQS would refuse, and take Lambda's 20 s", () => {
    expect(() => checkEventSourceOptions({ receiveWaitSeconds: 21 })).toThrow(
      new LocalStackError(
        'Invalid local stack setting: receiveWaitSeconds must be an integer from 0 to 20 (got 21)',
      ),
    );
    expect(() => checkEventSourceOptions({ receiveWaitSeconds: 1.5 })).toThrow(/receiveWaitSeconds/);
    expect(() => checkEventSourceOptions({ receiveWaitSeconds: 20 })).not.toThrow();
  });
});
