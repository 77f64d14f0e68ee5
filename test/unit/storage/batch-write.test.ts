/**
 * BatchWriteItem with a mocked client: 25 requests per call, unprocessed items sent again with
 * backoff, a give-up after five re-sends, and a failing call passed on as it is.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BATCH_WRITE_LIMIT, batchWrite, batchWriteAll } from '../../../shared/storage/batch-write';

type RequestItems = NonNullable<BatchWriteCommand['input']['RequestItems']>;

/** A client whose BatchWriteItem answers come from `answer`, one per call; records each call's items. */
function mockedClient(
  answer: (items: RequestItems, call: number) => Promise<{ UnprocessedItems?: RequestItems }>,
) {
  const calls: RequestItems[] = [];
  const doc = {
    send: async (command: unknown) => {
      if (!(command instanceof BatchWriteCommand)) throw new Error('only BatchWriteItem is expected');
      const items = command.input.RequestItems as RequestItems;
      calls.push(items);
      return answer(items, calls.length);
    },
  } as unknown as DynamoDBDocumentClient;
  return { doc, calls };
}

const put = (id: number) => ({ PutRequest: { Item: { pk: `P#${id}`, sk: 'S' } } });

describe('batchWriteAll', () => {
  it('writes 25 requests per call, one call after another, in order', async () => {
    const { doc, calls } = mockedClient(async () => ({}));
    const requests = Array.from({ length: 60 }, (_, id) => put(id));

    await batchWriteAll(doc, 'table', requests);

    expect(calls.map((items) => items.table?.length)).toEqual([BATCH_WRITE_LIMIT, BATCH_WRITE_LIMIT, 10]);
    expect(calls.flatMap((items) => items.table ?? [])).toEqual(requests);
  });

  it('makes no call for no requests', async () => {
    const { doc, calls } = mockedClient(async () => ({}));
    await batchWriteAll(doc, 'table', []);
    expect(calls).toEqual([]);
  });

  it('passes on a failing call and writes nothing after it', async () => {
    const { doc, calls } = mockedClient(async (_items, call) => {
      if (call === 1)
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ThrottlingException',
        });
      return {};
    });

    await expect(
      batchWriteAll(
        doc,
        'table',
        Array.from({ length: 30 }, (_, id) => put(id)),
      ),
    ).rejects.toThrow(/Throughput exceeds/);
    expect(calls).toHaveLength(1);
  });
});

describe('batchWrite', () => {
  afterEach(() => jest.useRealTimers());

  it('sends the unprocessed items again, and only those, after a growing wait', async () => {
    jest.useFakeTimers();
    const { doc, calls } = mockedClient(async (items, call) =>
      call <= 2 ? { UnprocessedItems: { table: (items.table ?? []).slice(1) } } : {},
    );

    const written = batchWrite(doc, { RequestItems: { table: [put(1), put(2), put(3)] } });
    await jest.advanceTimersByTimeAsync(99);
    expect(calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(200);
    await written;

    expect(calls.map((items) => items.table)).toEqual([[put(1), put(2), put(3)], [put(2), put(3)], [put(3)]]);
  });

  it('gives up when items stay unprocessed after five re-sends', async () => {
    jest.useFakeTimers();
    const { doc, calls } = mockedClient(async (items) => ({ UnprocessedItems: items }));

    const written = batchWrite(doc, { RequestItems: { table: [put(1)] } });
    const outcome = written.catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(100 + 200 + 400 + 800 + 1600);

    expect(await outcome).toEqual(new Error('DynamoDB kept items unprocessed after 5 retries'));
    expect(calls).toHaveLength(6);
  });

  it('treats an empty set of unprocessed items as done', async () => {
    const { doc, calls } = mockedClient(async () => ({ UnprocessedItems: {} }));
    await batchWrite(doc, { RequestItems: { table: [put(1)] } });
    expect(calls).toHaveLength(1);
  });
});
