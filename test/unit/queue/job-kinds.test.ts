/**
 * The job-kind table: every shape the queues carry has its entry, `parseJob` reads each message
 * by the entry of the kind it claims, and the consumer of every queue takes every kind the table
 * says the queue carries (and nothing no queue of it carries).
 */
import { DEAD_LETTER_JOB_KINDS } from '../../../functions/dead-letter';
import { DELIVERY_JOB_KINDS } from '../../../functions/delivery';
import { type FunctionKey, QUEUES, type QueueKey } from '../../../shared/config/resources';
import { QUEUED_JOB_SCHEMAS } from '../../../shared/domain/delivery';
import {
  packEndedJobs,
  packFanOut,
  packJobs,
  parseJob,
  storedFanOutBody,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import {
  claimedKind,
  JOB_KINDS,
  JOB_STEPS,
  type JobKind,
  jobLogFields,
  kindOf,
  kindsCarriedBy,
  queuesCarrying,
} from '../../../shared/queue/job-kinds';
import { item } from '../../support/fakes';

const envelope = { topic: 'orders', subscription: 'audit' };
const ended = { item: item('e1', 1), reason: 'MaxDeliveryAttemptsExceeded' as const, endedAt: 2 };

/** One message body of every kind (the type makes leaving a kind out a compile error). */
const SAMPLES: Record<JobKind, string> = {
  deliver: packJobs(envelope, [item('e1', 1), item('e2', 1)])[0] as string,
  validate: validationJobBody({ ...envelope, code: 'c-1', validationUrl: 'https://api.example.test/v?c=1' }),
  fanout: packFanOut('orders', [item('e1', 1)], [{ subscription: 'audit', matched: [0] }]),
  'stored-fanout': storedFanOutBody('orders', 'fanouts/2026-01-01/p-1.json', 1234),
  ended: packEndedJobs(
    { ...envelope, deliveryProfile: 'topic', deadLetter: { container: 'dead', format: 'EventGridSchema' } },
    [ended],
  )[0] as string,
};

/** The kinds each consuming function takes, as the functions declare them. */
const CONSUMER_KINDS: Partial<Record<FunctionKey, readonly JobKind[]>> = {
  delivery: DELIVERY_JOB_KINDS,
  deadLetter: DEAD_LETTER_JOB_KINDS,
};

const QUEUE_KEYS = Object.keys(QUEUES) as QueueKey[];

describe('the job-kind table', () => {
  it('has an entry for every shape the queues carry, and only those', () => {
    const schemas = Object.values(JOB_KINDS).map((definition) => definition.schema);
    expect(new Set(schemas).size).toBe(schemas.length);
    expect(schemas).toHaveLength(QUEUED_JOB_SCHEMAS.length);
    for (const schema of QUEUED_JOB_SCHEMAS) expect(schemas).toContain(schema);
    expect(Object.keys(JOB_KINDS).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(Object.keys(SAMPLES) as JobKind[])(
    'reads a %s message by its entry, as a job of that kind',
    (kind) => {
      const body = SAMPLES[kind];
      const job = parseJob(body);
      expect(kindOf(job)).toBe(kind);
      expect(claimedKind(JSON.parse(body))).toBe(kind);
      expect(job).toEqual(JOB_KINDS[kind].schema.parse(JSON.parse(body)));
    },
  );

  it('says, for every kind, which queues carry it and a step that exists', () => {
    for (const [kind, definition] of Object.entries(JOB_KINDS)) {
      const queues = Object.keys(definition.carriedBy);
      expect([kind, queues.length > 0]).toEqual([kind, true]);
      for (const queue of queues) expect(QUEUE_KEYS).toContain(queue);
      for (const step of Object.values(definition.carriedBy)) expect(Object.keys(JOB_STEPS)).toContain(step);
    }
    expect(queuesCarrying('ended').sort()).toEqual(['endedDelivery', 'retry']);
    expect(kindsCarriedBy('endedDelivery')).toEqual(['ended']);
  });

  it.each(QUEUE_KEYS)('the consumer of the %s queue takes every kind the queue carries', (queue) => {
    const taken = CONSUMER_KINDS[QUEUES[queue].consumer.function];
    expect(taken).toBeDefined();
    expect(taken).toEqual(expect.arrayContaining(kindsCarriedBy(queue)));
  });

  it.each(Object.entries(CONSUMER_KINDS))(
    'the %s function takes no kind that none of its queues carries',
    (fn, kinds) => {
      const carried = new Set(
        QUEUE_KEYS.filter((queue) => QUEUES[queue].consumer.function === fn).flatMap(kindsCarriedBy),
      );
      expect([...(kinds ?? [])].sort()).toEqual([...carried].sort());
    },
  );

  it.each([
    ['no kind', {}],
    ['an unknown kind', { kind: 'replay' }],
    ['a kind that is an object property, not an entry', { kind: 'toString' }],
    ['a kind that is not a string', { kind: 7 }],
    ['a value that is not an object', 'text'],
  ])('takes a message with %s for a delivery job (its schema then names what is wrong)', (_name, json) => {
    expect(claimedKind(json)).toBe('deliver');
  });

  it('refuses a message by the schema of the kind it claims', () => {
    const body = JSON.stringify({ ...JSON.parse(SAMPLES.deliver), kind: 'ended' });
    expect(() => parseJob(body)).toThrow(/^job message is malformed at deliveryProfile: /);
    expect(() => parseJob(JSON.stringify({ ...JSON.parse(SAMPLES.deliver), kind: 'replay' }))).toThrow(
      /^job message is malformed at kind: /,
    );
  });

  it.each<[JobKind, { topic: string; subscription?: string; events: number }]>([
    ['deliver', { topic: 'orders', subscription: 'audit', events: 2 }],
    ['validate', { topic: 'orders', subscription: 'audit', events: 0 }],
    ['fanout', { topic: 'orders', events: 1 }],
    ['stored-fanout', { topic: 'orders', events: 0 }],
    ['ended', { topic: 'orders', subscription: 'audit', events: 1 }],
  ])('describes a %s job for logs', (kind, fields) => {
    expect(jobLogFields(parseJob(SAMPLES[kind]))).toEqual(fields);
  });
});
