/**
 * The one rule that decides which messages of a batch come back: every record whose step did not
 * say `done`, in record order.
 */
import {
  acknowledges,
  batchResponse,
  done,
  poison,
  type RecordOutcome,
  retryLater,
} from '../../../shared/queue/record-outcome';

const records = (count: number) => Array.from({ length: count }, (_, index) => ({ messageId: `m${index}` }));

describe('batchResponse', () => {
  it.each<[string, (RecordOutcome | undefined)[], string[]]>([
    ['an empty batch', [], []],
    ['every record done', [done(), done({ delivered: 3 })], []],
    ['a record to retry later', [done(), retryLater('SQS is throttling')], ['m1']],
    ['a poison record (it comes back until SQS parks it)', [poison('not JSON'), done()], ['m0']],
    [
      'a mixed batch, in record order',
      [retryLater('a'), done(), poison('b'), done(), retryLater('c')],
      ['m0', 'm2', 'm4'],
    ],
    [
      'every record failed (an answer, not an invocation error)',
      [poison('a'), retryLater('b')],
      ['m0', 'm1'],
    ],
    ['a record no step answered for', [done(), undefined], ['m1']],
  ])('%s', (_name, outcomes, failed) => {
    expect(batchResponse(records(outcomes.length), outcomes)).toEqual({
      batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })),
    });
  });

  it('gives back a record that has no outcome at all (fewer outcomes than records)', () => {
    expect(batchResponse(records(3), [done()])).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }],
    });
  });
});

describe('outcomes', () => {
  it.each<[RecordOutcome | undefined, boolean]>([
    [done(), true],
    [done({ delivered: 1 }), true],
    [retryLater('x'), false],
    [poison('x'), false],
    [undefined, false],
  ])('%j acknowledges its message: %s', (outcome, acknowledged) => {
    expect(acknowledges(outcome)).toBe(acknowledged);
  });

  it('carry their reason, and details only when given', () => {
    expect(done()).toEqual({ kind: 'done' });
    expect(done({ delivered: 2 })).toEqual({ kind: 'done', details: { delivered: 2 } });
    expect(retryLater('table throttled')).toEqual({ kind: 'retryLater', reason: 'table throttled' });
    expect(poison('not JSON')).toEqual({ kind: 'poison', reason: 'not JSON' });
  });
});
