import type { AdvancedFilter, SubscriptionFilter } from '../../../shared/domain/model';
import {
  compileFilter,
  FILTER_LIMITS,
  type FilterView,
  validateFilter,
} from '../../../shared/publish/filter';

describe('filters', () => {
  it.each([
    [{}, 'Any.Type', true],
    [{ includedEventTypes: ['A.B'] }, 'a.b', true],
    [{ includedEventTypes: ['A.B'] }, 'A.C', false],
    [{ includedEventTypes: [] }, 'A.B', false],
  ])('%j matches %s: %s', (filter, eventType, expected) => {
    expect(compileFilter(filter)(eventGridView({ eventType, subject: 's' }))).toBe(expected);
  });
});

/** A view of an Event Grid-shaped event; counts how often the parsed event is read. */
function eventGridView(event: Record<string, unknown>, reads = { count: 0 }): FilterView {
  return {
    eventType: event.eventType as string,
    subject: typeof event.subject === 'string' ? event.subject : undefined,
    eventTypeKey: 'eventType',
    event: () => {
      reads.count += 1;
      return event;
    },
  };
}

function cloudEventView(event: Record<string, unknown>): FilterView {
  return {
    eventType: event.type as string,
    subject: typeof event.subject === 'string' ? event.subject : undefined,
    eventTypeKey: 'type',
    event: () => event,
  };
}

const MISSING = Symbol('missing');

/** Whether `advanced` matches an event whose `data.v` is `value`. */
function matchesData(advanced: AdvancedFilter, value: unknown, onArrays = false): boolean {
  const data = value === MISSING ? {} : { v: value };
  const filter: SubscriptionFilter = {
    advancedFilters: [advanced],
    enableAdvancedFilteringOnArrays: onArrays,
  };
  return compileFilter(filter)(eventGridView({ eventType: 'T', subject: 's', data }));
}

describe('advanced filters, per operator', () => {
  // [filter, data.v (MISSING: absent), enableAdvancedFilteringOnArrays, expected]
  const table: [AdvancedFilter, unknown, boolean, boolean][] = [
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, 2, false, true],
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, 3, false, false],
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, '2', false, false],
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, MISSING, false, false],
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, [5, 2], false, false],
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, [5, 2], true, true],
    [{ operatorType: 'NumberIn', key: 'data.v', values: [1, 2] }, [5, 6], true, false],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, 3, false, true],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, 1, false, false],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, MISSING, false, true],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, null, false, true],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, [1, 3], false, false],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, [1, 3], true, true],
    [{ operatorType: 'NumberNotIn', key: 'data.v', values: [1, 2] }, [1, 2], true, false],
    [{ operatorType: 'NumberLessThan', key: 'data.v', value: 5 }, 4.5, false, true],
    [{ operatorType: 'NumberLessThan', key: 'data.v', value: 5 }, 5, false, false],
    [{ operatorType: 'NumberLessThan', key: 'data.v', value: 5 }, MISSING, false, false],
    [{ operatorType: 'NumberLessThan', key: 'data.v', value: 5 }, [9, 1], false, false],
    [{ operatorType: 'NumberLessThan', key: 'data.v', value: 5 }, [9, 1], true, true],
    [{ operatorType: 'NumberGreaterThan', key: 'data.v', value: 5 }, 6, false, true],
    [{ operatorType: 'NumberGreaterThan', key: 'data.v', value: 5 }, 5, false, false],
    [{ operatorType: 'NumberGreaterThan', key: 'data.v', value: 5 }, MISSING, false, false],
    [{ operatorType: 'NumberGreaterThan', key: 'data.v', value: 5 }, [1, 9], true, true],
    [{ operatorType: 'NumberLessThanOrEquals', key: 'data.v', value: 5 }, 5, false, true],
    [{ operatorType: 'NumberLessThanOrEquals', key: 'data.v', value: 5 }, 6, false, false],
    [{ operatorType: 'NumberLessThanOrEquals', key: 'data.v', value: 5 }, MISSING, false, false],
    [{ operatorType: 'NumberLessThanOrEquals', key: 'data.v', value: 5 }, [5], false, false],
    [{ operatorType: 'NumberLessThanOrEquals', key: 'data.v', value: 5 }, [5], true, true],
    [{ operatorType: 'NumberGreaterThanOrEquals', key: 'data.v', value: 5 }, 5, false, true],
    [{ operatorType: 'NumberGreaterThanOrEquals', key: 'data.v', value: 5 }, 4, false, false],
    [{ operatorType: 'NumberGreaterThanOrEquals', key: 'data.v', value: 5 }, MISSING, false, false],
    [{ operatorType: 'NumberGreaterThanOrEquals', key: 'data.v', value: 5 }, [4, 7], true, true],
    [
      {
        operatorType: 'NumberInRange',
        key: 'data.v',
        values: [
          [1, 3],
          [10, 20],
        ],
      },
      3,
      false,
      true,
    ],
    [
      {
        operatorType: 'NumberInRange',
        key: 'data.v',
        values: [
          [1, 3],
          [10, 20],
        ],
      },
      10,
      false,
      true,
    ],
    [
      {
        operatorType: 'NumberInRange',
        key: 'data.v',
        values: [
          [1, 3],
          [10, 20],
        ],
      },
      5,
      false,
      false,
    ],
    [{ operatorType: 'NumberInRange', key: 'data.v', values: [[1, 3]] }, MISSING, false, false],
    [{ operatorType: 'NumberInRange', key: 'data.v', values: [[1, 3]] }, [0, 2], false, false],
    [{ operatorType: 'NumberInRange', key: 'data.v', values: [[1, 3]] }, [0, 2], true, true],
    [
      {
        operatorType: 'NumberNotInRange',
        key: 'data.v',
        values: [
          [1, 3],
          [10, 20],
        ],
      },
      5,
      false,
      true,
    ],
    [
      {
        operatorType: 'NumberNotInRange',
        key: 'data.v',
        values: [
          [1, 3],
          [10, 20],
        ],
      },
      15,
      false,
      false,
    ],
    [{ operatorType: 'NumberNotInRange', key: 'data.v', values: [[1, 3]] }, MISSING, false, false],
    [{ operatorType: 'NumberNotInRange', key: 'data.v', values: [[1, 3]] }, [2, 9], true, true],
    [{ operatorType: 'BoolEquals', key: 'data.v', value: true }, true, false, true],
    [{ operatorType: 'BoolEquals', key: 'data.v', value: true }, false, false, false],
    [{ operatorType: 'BoolEquals', key: 'data.v', value: true }, 'true', false, false],
    [{ operatorType: 'BoolEquals', key: 'data.v', value: false }, MISSING, false, false],
    [{ operatorType: 'BoolEquals', key: 'data.v', value: false }, [true, false], false, false],
    [{ operatorType: 'BoolEquals', key: 'data.v', value: false }, [true, false], true, true],
    [{ operatorType: 'StringContains', key: 'data.v', values: ['RED', 'blue'] }, 'dark red', false, true],
    [{ operatorType: 'StringContains', key: 'data.v', values: ['RED', 'blue'] }, 'green', false, false],
    [{ operatorType: 'StringContains', key: 'data.v', values: ['red'] }, MISSING, false, false],
    [{ operatorType: 'StringContains', key: 'data.v', values: ['red'] }, ['x', 'Red'], false, false],
    [{ operatorType: 'StringContains', key: 'data.v', values: ['red'] }, ['x', 'Red'], true, true],
    [{ operatorType: 'StringNotContains', key: 'data.v', values: ['red', 'blue'] }, 'green', false, true],
    [{ operatorType: 'StringNotContains', key: 'data.v', values: ['red', 'blue'] }, 'BLUEish', false, false],
    [{ operatorType: 'StringNotContains', key: 'data.v', values: ['red'] }, MISSING, false, false],
    [{ operatorType: 'StringNotContains', key: 'data.v', values: ['red'] }, ['red', 'x'], true, true],
    [{ operatorType: 'StringBeginsWith', key: 'data.v', values: ['ab'] }, 'ABC', false, true],
    [{ operatorType: 'StringBeginsWith', key: 'data.v', values: ['ab'] }, 'cab', false, false],
    [{ operatorType: 'StringBeginsWith', key: 'data.v', values: ['ab'] }, MISSING, false, false],
    [{ operatorType: 'StringBeginsWith', key: 'data.v', values: ['ab'] }, ['x', 'abc'], true, true],
    [{ operatorType: 'StringNotBeginsWith', key: 'data.v', values: ['ab'] }, 'cab', false, true],
    [{ operatorType: 'StringNotBeginsWith', key: 'data.v', values: ['ab'] }, 'Abc', false, false],
    [{ operatorType: 'StringNotBeginsWith', key: 'data.v', values: ['ab'] }, MISSING, false, false],
    [{ operatorType: 'StringNotBeginsWith', key: 'data.v', values: ['ab'] }, ['abc'], true, false],
    [{ operatorType: 'StringEndsWith', key: 'data.v', values: ['.JPG', '.png'] }, 'a.jpg', false, true],
    [{ operatorType: 'StringEndsWith', key: 'data.v', values: ['.jpg'] }, 'a.gif', false, false],
    [{ operatorType: 'StringEndsWith', key: 'data.v', values: ['.jpg'] }, MISSING, false, false],
    [{ operatorType: 'StringEndsWith', key: 'data.v', values: ['.jpg'] }, ['a.JPG'], false, false],
    [{ operatorType: 'StringEndsWith', key: 'data.v', values: ['.jpg'] }, ['a.JPG'], true, true],
    [{ operatorType: 'StringNotEndsWith', key: 'data.v', values: ['.jpg'] }, 'a.gif', false, true],
    [{ operatorType: 'StringNotEndsWith', key: 'data.v', values: ['.jpg'] }, 'A.JPG', false, false],
    [{ operatorType: 'StringNotEndsWith', key: 'data.v', values: ['.jpg'] }, MISSING, false, false],
    [{ operatorType: 'StringNotEndsWith', key: 'data.v', values: ['.jpg'] }, ['a.jpg', 'b'], true, true],
    [{ operatorType: 'StringIn', key: 'data.v', values: ['Red', 'blue'] }, 'RED', false, true],
    [{ operatorType: 'StringIn', key: 'data.v', values: ['red'] }, 'reddish', false, false],
    [{ operatorType: 'StringIn', key: 'data.v', values: ['red'] }, MISSING, false, false],
    [{ operatorType: 'StringIn', key: 'data.v', values: ['red'] }, ['red'], false, false],
    [{ operatorType: 'StringIn', key: 'data.v', values: ['red'] }, ['blue', 'red'], true, true],
    [{ operatorType: 'StringNotIn', key: 'data.v', values: ['red'] }, 'blue', false, true],
    [{ operatorType: 'StringNotIn', key: 'data.v', values: ['red'] }, 'RED', false, false],
    [{ operatorType: 'StringNotIn', key: 'data.v', values: ['red'] }, MISSING, false, true],
    [{ operatorType: 'StringNotIn', key: 'data.v', values: ['red'] }, 1, false, false],
    [{ operatorType: 'StringNotIn', key: 'data.v', values: ['red'] }, ['red', 'blue'], false, false],
    [{ operatorType: 'StringNotIn', key: 'data.v', values: ['red'] }, ['red', 'blue'], true, true],
    [{ operatorType: 'IsNullOrUndefined', key: 'data.v' }, MISSING, false, true],
    [{ operatorType: 'IsNullOrUndefined', key: 'data.v' }, null, false, true],
    [{ operatorType: 'IsNullOrUndefined', key: 'data.v' }, 0, false, false],
    [{ operatorType: 'IsNullOrUndefined', key: 'data.v' }, [], true, false],
    [{ operatorType: 'IsNotNull', key: 'data.v' }, '', false, true],
    [{ operatorType: 'IsNotNull', key: 'data.v' }, null, false, false],
    [{ operatorType: 'IsNotNull', key: 'data.v' }, MISSING, false, false],
    [{ operatorType: 'IsNotNull', key: 'data.v' }, [1], false, true],
  ];
  it.each(table)('%j on %p (arrays: %p) matches: %p', (advanced, value, onArrays, expected) => {
    expect(matchesData(advanced, value, onArrays)).toBe(expected);
  });

  it('ANDs filters and ORs values', () => {
    const compiled = compileFilter({
      advancedFilters: [
        { operatorType: 'StringIn', key: 'data.color', values: ['red', 'blue'] },
        { operatorType: 'NumberGreaterThan', key: 'data.size', value: 3 },
      ],
    });
    const at = (data: unknown) => compiled(eventGridView({ eventType: 'T', subject: 's', data }));
    expect(at({ color: 'blue', size: 4 })).toBe(true);
    expect(at({ color: 'blue', size: 2 })).toBe(false);
    expect(at({ color: 'green', size: 4 })).toBe(false);
  });

  it('reads top-level members and CloudEvents attributes, and does not walk prototypes', () => {
    const eventGrid = {
      id: 'E-1',
      eventType: 'Order.Created',
      subject: 'Orders/1',
      dataVersion: '2',
      data: {},
    };
    const on = (advanced: AdvancedFilter, view: FilterView) =>
      compileFilter({ advancedFilters: [advanced] })(view);
    expect(on({ operatorType: 'StringIn', key: 'id', values: ['e-1'] }, eventGridView(eventGrid))).toBe(true);
    expect(
      on({ operatorType: 'StringIn', key: 'dataVersion', values: ['2'] }, eventGridView(eventGrid)),
    ).toBe(true);
    expect(
      on(
        { operatorType: 'StringBeginsWith', key: 'eventType', values: ['order.'] },
        eventGridView(eventGrid),
      ),
    ).toBe(true);
    expect(on({ operatorType: 'IsNotNull', key: 'data.constructor' }, eventGridView(eventGrid))).toBe(false);
    expect(on({ operatorType: 'IsNotNull', key: 'subject.length' }, eventGridView(eventGrid))).toBe(false);

    const cloud = { id: '1', type: 'Order.Created', source: '/shop', data: { n: 1 } };
    expect(
      on({ operatorType: 'StringIn', key: 'type', values: ['ORDER.CREATED'] }, cloudEventView(cloud)),
    ).toBe(true);
    expect(on({ operatorType: 'StringIn', key: 'source', values: ['/SHOP'] }, cloudEventView(cloud))).toBe(
      true,
    );
    expect(on({ operatorType: 'IsNullOrUndefined', key: 'subject' }, cloudEventView(cloud))).toBe(true);
    expect(on({ operatorType: 'IsNullOrUndefined', key: 'eventType' }, cloudEventView(cloud))).toBe(true);
  });

  it('parses the event only for keys other than the event type and subject', () => {
    const reads = { count: 0 };
    const view = eventGridView({ eventType: 'T', subject: 'a/b', data: { n: 1 } }, reads);
    compileFilter({
      includedEventTypes: ['t'],
      subjectBeginsWith: 'a/',
      advancedFilters: [
        { operatorType: 'StringIn', key: 'eventType', values: ['t'] },
        { operatorType: 'StringEndsWith', key: 'subject', values: ['/B'] },
      ],
    })(view);
    expect(reads.count).toBe(0);
    expect(
      compileFilter({ advancedFilters: [{ operatorType: 'NumberIn', key: 'data.n', values: [1] }] })(view),
    ).toBe(true);
    expect(reads.count).toBe(1);
  });
});

describe('subject filters', () => {
  it.each([
    [{ subjectBeginsWith: '/blobs/' }, '/BLOBS/a.jpg', true],
    [{ subjectBeginsWith: '/blobs/', isSubjectCaseSensitive: true }, '/BLOBS/a.jpg', false],
    [{ subjectBeginsWith: '/blobs/', isSubjectCaseSensitive: true }, '/blobs/a.jpg', true],
    [{ subjectEndsWith: '.JPG' }, '/blobs/a.jpg', true],
    [{ subjectEndsWith: '.JPG', isSubjectCaseSensitive: true }, '/blobs/a.jpg', false],
    [{ subjectBeginsWith: '/blobs/', subjectEndsWith: '.jpg' }, '/blobs/a.png', false],
    [{ subjectBeginsWith: '/blobs/', subjectEndsWith: '.jpg' }, '/other/a.jpg', false],
    [{ subjectBeginsWith: '/blobs/', subjectEndsWith: '.jpg' }, '/blobs/a.jpg', true],
    [{ subjectBeginsWith: '', subjectEndsWith: '' }, 'anything', true],
    [{ subjectBeginsWith: 'a' }, undefined, false],
  ] as [SubscriptionFilter, string | undefined, boolean][])('%j on %p: %p', (filter, subject, expected) => {
    expect(compileFilter(filter)(eventGridView({ eventType: 'T', subject }))).toBe(expected);
  });
});

describe('validateFilter', () => {
  const string = (length: number) => 'x'.repeat(length);
  it.each([
    [{}, undefined],
    [
      {
        includedEventTypes: ['A'],
        subjectBeginsWith: 'a',
        isSubjectCaseSensitive: true,
        enableAdvancedFilteringOnArrays: true,
        advancedFilters: [
          { operatorType: 'NumberInRange', key: 'data.n', values: [[1, 2]] },
          { operatorType: 'BoolEquals', key: 'data.b', value: false },
          { operatorType: 'IsNotNull', key: 'data.c' },
          { operatorType: 'StringIn', key: 'data.s', values: [string(512)] },
        ],
      },
      undefined,
    ],
    [{ advancedFilters: [{ operatorType: 'StringIsh', key: 'a' }] }, 'advancedFilters.0.operatorType'],
    [{ advancedFilters: [{ operatorType: 'IsNotNull', key: '' }] }, 'advancedFilters.0.key'],
    [{ advancedFilters: [{ operatorType: 'IsNotNull', key: 'data..a' }] }, 'advancedFilters.0.key'],
    [{ advancedFilters: [{ operatorType: 'IsNotNull', key: 'a', value: 1 }] }, 'advancedFilters.0'],
    [
      { advancedFilters: [{ operatorType: 'NumberIn', key: 'a', values: ['1'] }] },
      'advancedFilters.0.values.0',
    ],
    [{ advancedFilters: [{ operatorType: 'NumberIn', key: 'a', value: 1 }] }, 'advancedFilters.0.value'],
    [{ advancedFilters: [{ operatorType: 'NumberIn', key: 'a', values: [] }] }, 'advancedFilters.0.values'],
    [
      { advancedFilters: [{ operatorType: 'NumberLessThan', key: 'a', value: '1' }] },
      'advancedFilters.0.value',
    ],
    [{ advancedFilters: [{ operatorType: 'BoolEquals', key: 'a', value: 1 }] }, 'advancedFilters.0.value'],
    [
      { advancedFilters: [{ operatorType: 'NumberInRange', key: 'a', values: [[3, 1]] }] },
      'advancedFilters.0.values.0',
    ],
    [
      { advancedFilters: [{ operatorType: 'NumberInRange', key: 'a', values: [[1]] }] },
      'advancedFilters.0.values.0',
    ],
    [
      { advancedFilters: [{ operatorType: 'StringIn', key: 'a', values: [1] }] },
      'advancedFilters.0.values.0',
    ],
    [{ advancedFilters: {} }, 'advancedFilters'],
    [{ includedEventTypes: 'A' }, 'includedEventTypes'],
    [{ subjectEndsWith: 3 }, 'subjectEndsWith'],
    [{ isSubjectCaseSensitive: 'yes' }, 'isSubjectCaseSensitive'],
    [null, 'filter'],
  ])('%j: %p', (filter, field) => {
    expect(validateFilter(filter)?.field).toBe(field);
  });

  it('names the filter, its index and the limit', () => {
    const filter = {
      advancedFilters: [
        { operatorType: 'IsNotNull', key: 'a' },
        { operatorType: 'IsNotNull', key: 'b' },
        { operatorType: 'IsNotNull', key: 'c' },
        { operatorType: 'StringContains', key: 'd', values: ['ok', string(600)] },
      ],
    };
    expect(validateFilter(filter)).toEqual({
      field: 'advancedFilters.3.values',
      message: 'at most 512 characters per string (got 600)',
    });
    expect(validateFilter({ advancedFilters: [{ operatorType: 'Nope', key: 'a' }] })?.message).toMatch(
      /operatorType|NumberIn/,
    );
  });

  it('counts filters and values against the limits', () => {
    const filters = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ operatorType: 'IsNotNull', key: `k${index}` }));
    expect(validateFilter({ advancedFilters: filters(FILTER_LIMITS.maxAdvancedFilters) })).toBeUndefined();
    expect(validateFilter({ advancedFilters: filters(26) })).toEqual({
      field: 'advancedFilters',
      message: 'at most 25 advanced filters (got 26)',
    });
    const values = (count: number) => Array.from({ length: count }, (_, index) => index);
    expect(
      validateFilter({
        advancedFilters: [
          { operatorType: 'NumberIn', key: 'a', values: values(24) },
          { operatorType: 'NumberLessThan', key: 'b', value: 1 },
        ],
      }),
    ).toBeUndefined();
    expect(
      validateFilter({
        advancedFilters: [
          { operatorType: 'NumberIn', key: 'a', values: values(20) },
          {
            operatorType: 'NumberInRange',
            key: 'b',
            values: [
              [1, 2],
              [3, 4],
              [5, 6],
              [7, 8],
              [9, 10],
              [11, 12],
            ],
          },
        ],
      }),
    ).toEqual({ field: 'advancedFilters', message: expect.stringContaining('at most 25 values') });
  });
});

// A property test: the compiled filter against an obviously correct reading of the semantics.

/** Mulberry32: a small seeded PRNG, so a failure is reproducible. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function reference(filter: SubscriptionFilter, event: Record<string, unknown>, typeKey: string): boolean {
  const lower = (text: string) => text.toLowerCase();
  const eventType = event[typeKey] as string;
  if (filter.includedEventTypes !== undefined) {
    const types = filter.includedEventTypes.map(lower);
    if (!types.includes('all') && !types.includes(lower(eventType))) return false;
  }
  const subject = typeof event.subject === 'string' ? event.subject : undefined;
  const fold = (text: string) => (filter.isSubjectCaseSensitive ? text : lower(text));
  if (filter.subjectBeginsWith) {
    if (subject === undefined || !fold(subject).startsWith(fold(filter.subjectBeginsWith))) return false;
  }
  if (filter.subjectEndsWith) {
    if (subject === undefined || !fold(subject).endsWith(fold(filter.subjectEndsWith))) return false;
  }
  for (const advanced of filter.advancedFilters ?? []) {
    let value: unknown = event;
    for (const step of advanced.key.split('.')) {
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      value =
        isObject && Object.hasOwn(value as object, step)
          ? (value as Record<string, unknown>)[step]
          : undefined;
    }
    if (advanced.operatorType === 'IsNullOrUndefined') {
      if (value !== undefined && value !== null) return false;
      continue;
    }
    if (advanced.operatorType === 'IsNotNull') {
      if (value === undefined || value === null) return false;
      continue;
    }
    let ok: boolean;
    if (value === undefined || value === null) {
      ok = advanced.operatorType === 'NumberNotIn' || advanced.operatorType === 'StringNotIn';
    } else if (Array.isArray(value)) {
      ok =
        filter.enableAdvancedFilteringOnArrays === true &&
        value.some((item) => scalarMatches(advanced, item));
    } else {
      ok = scalarMatches(advanced, value);
    }
    if (!ok) return false;
  }
  return true;
}

function scalarMatches(filter: AdvancedFilter, value: unknown): boolean {
  const n = typeof value === 'number' ? value : undefined;
  const s = typeof value === 'string' ? value.toLowerCase() : undefined;
  const strings = 'values' in filter ? (filter.values as unknown[]).map((v) => String(v).toLowerCase()) : [];
  switch (filter.operatorType) {
    case 'NumberIn':
      return n !== undefined && filter.values.includes(n);
    case 'NumberNotIn':
      return n !== undefined && !filter.values.includes(n);
    case 'NumberLessThan':
      return n !== undefined && n < filter.value;
    case 'NumberGreaterThan':
      return n !== undefined && n > filter.value;
    case 'NumberLessThanOrEquals':
      return n !== undefined && n <= filter.value;
    case 'NumberGreaterThanOrEquals':
      return n !== undefined && n >= filter.value;
    case 'NumberInRange':
      return n !== undefined && filter.values.some(([min, max]) => min <= n && n <= max);
    case 'NumberNotInRange':
      return n !== undefined && !filter.values.some(([min, max]) => min <= n && n <= max);
    case 'BoolEquals':
      return value === filter.value;
    case 'StringContains':
      return s !== undefined && strings.some((w) => s.includes(w));
    case 'StringNotContains':
      return s !== undefined && !strings.some((w) => s.includes(w));
    case 'StringBeginsWith':
      return s !== undefined && strings.some((w) => s.startsWith(w));
    case 'StringNotBeginsWith':
      return s !== undefined && !strings.some((w) => s.startsWith(w));
    case 'StringEndsWith':
      return s !== undefined && strings.some((w) => s.endsWith(w));
    case 'StringNotEndsWith':
      return s !== undefined && !strings.some((w) => s.endsWith(w));
    case 'StringIn':
      return s !== undefined && strings.includes(s);
    case 'StringNotIn':
      return s !== undefined && !strings.includes(s);
    default:
      return false;
  }
}

describe('compileFilter against a reference', () => {
  const random = prng(20261123);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const STRINGS = ['red', 'RED', 'Red-ish', 'blue', 'a/b', 'A/B/c', '', 'x.jpg', 'X.JPG'];
  const NUMBERS = [0, 1, 2, 2.5, 3];
  // Mostly data members, so most filters compare something.
  const KEYS = [
    'data.a',
    'data.a',
    'data.a',
    'data.b',
    'data.b',
    'data.a.b',
    'subject',
    'eventType',
    'type',
    'source',
    'id',
    'data.missing',
  ];
  const scalar = () => pick<unknown>([pick(STRINGS), pick(NUMBERS), true, false, null]);
  const value = (): unknown =>
    random() < 0.2
      ? Array.from({ length: Math.floor(random() * 3) }, scalar)
      : random() < 0.1
        ? { b: scalar() }
        : scalar();
  const some = <T>(make: () => T) => Array.from({ length: 1 + Math.floor(random() * 3) }, make);

  function advanced(): AdvancedFilter {
    const key = pick(KEYS);
    const operatorType = pick([
      'NumberIn',
      'NumberNotIn',
      'NumberLessThan',
      'NumberGreaterThan',
      'NumberLessThanOrEquals',
      'NumberGreaterThanOrEquals',
      'NumberInRange',
      'NumberNotInRange',
      'BoolEquals',
      'StringContains',
      'StringNotContains',
      'StringBeginsWith',
      'StringNotBeginsWith',
      'StringEndsWith',
      'StringNotEndsWith',
      'StringIn',
      'StringNotIn',
      'IsNullOrUndefined',
      'IsNotNull',
    ] as const);
    switch (operatorType) {
      case 'NumberIn':
      case 'NumberNotIn':
        return { operatorType, key, values: some(() => pick(NUMBERS)) };
      case 'NumberLessThan':
      case 'NumberGreaterThan':
      case 'NumberLessThanOrEquals':
      case 'NumberGreaterThanOrEquals':
        return { operatorType, key, value: pick(NUMBERS) };
      case 'NumberInRange':
      case 'NumberNotInRange':
        return {
          operatorType,
          key,
          values: some(() => {
            const [a, b] = [pick(NUMBERS), pick(NUMBERS)];
            return [Math.min(a, b), Math.max(a, b)] as [number, number];
          }),
        };
      case 'BoolEquals':
        return { operatorType, key, value: random() < 0.5 };
      case 'IsNullOrUndefined':
      case 'IsNotNull':
        return { operatorType, key };
      default:
        return { operatorType, key, values: some(() => pick(STRINGS)) };
    }
  }

  function filter(): SubscriptionFilter {
    const result: SubscriptionFilter = {};
    if (random() < 0.3) result.includedEventTypes = some(() => pick(['Order.Created', 'order.paid', 'All']));
    if (random() < 0.3) result.subjectBeginsWith = pick(['a/', 'A/', '', 'x']);
    if (random() < 0.3) result.subjectEndsWith = pick(['/b', '/C', 'jpg']);
    if (random() < 0.5) result.isSubjectCaseSensitive = random() < 0.5;
    if (random() < 0.5) result.enableAdvancedFilteringOnArrays = random() < 0.5;
    if (random() < 0.8) result.advancedFilters = some(advanced);
    return result;
  }

  function event(): { event: Record<string, unknown>; view: FilterView; typeKey: string } {
    const data = { a: value(), b: value() };
    const eventType = pick(['Order.Created', 'ORDER.PAID', 'other']);
    if (random() < 0.5) {
      const subject = pick(['a/b', 'A/B/c', 'x.jpg']);
      const body = { id: pick(STRINGS), eventType, subject, dataVersion: '1', data };
      return { event: body, view: eventGridView(body), typeKey: 'eventType' };
    }
    const body: Record<string, unknown> = { id: '1', type: eventType, source: pick(STRINGS), data };
    if (random() < 0.7) body.subject = pick(['a/b', 'A/B/c']);
    return { event: body, view: cloudEventView(body), typeKey: 'type' };
  }

  it('agrees on a few hundred random filters and events', () => {
    let matched = 0;
    for (let round = 0; round < 600; round += 1) {
      const definition = filter();
      const compiled = compileFilter(definition);
      for (let index = 0; index < 5; index += 1) {
        const sample = event();
        const expected = reference(definition, sample.event, sample.typeKey);
        if (compiled(sample.view) !== expected) {
          throw new Error(`disagrees on ${JSON.stringify(definition)} with ${JSON.stringify(sample.event)}`);
        }
        if (expected) matched += 1;
      }
    }
    // The generator must exercise both outcomes.
    expect(matched).toBeGreaterThan(50);
    expect(matched).toBeLessThan(2900);
  });
});

it('refuses more than 100 event types, naming includedEventTypes', () => {
  const types = (count: number) => Array.from({ length: count }, (_, i) => `T.${i}`);
  expect(validateFilter({ includedEventTypes: types(100) })).toBeUndefined();
  expect(validateFilter({ includedEventTypes: types(101) })).toEqual({
    field: 'includedEventTypes',
    message: 'at most 100 event types (got 101)',
  });
});
