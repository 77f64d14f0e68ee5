/**
 * The job-kind table: every shape the queues carry has its entry, `parseJob` reads each message
 * by the entry of the kind it claims, and the consumer of every queue takes every kind the table
 * says the queue carries (and nothing no queue of it carries).
 */
import { DEAD_LETTER_JOB_KINDS } from '../../../functions/dead-letter';
import { DELIVERY_JOB_KINDS } from '../../../functions/delivery';
import { type FunctionKey, QUEUES, type QueueKey } from '../../../shared/config/resources';
import { JOB_REGISTRY, kindsCarriedBy, queuesCarrying, stepFor } from '../../../shared/delivery/job-registry';
import { deadLetterTargetSchema, JOB_SCHEMAS, QUEUED_JOB_SCHEMAS } from '../../../shared/domain/delivery';
import {
  backlogTickBody,
  packEndedJobs,
  packFanOut,
  packJobs,
  packOrderedJobs,
  packStoreJobs,
  parseJob,
  storedFanOutBody,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import { claimedKind, type JobKind, jobLogFields, kindOf } from '../../../shared/queue/job-kinds';
import { archiveJobBody, deliveryTarget, item, replayPageJobBody } from '../../support/fakes';

const target = deliveryTarget();
const ended = { item: item('e1', 1), reason: 'MaxDeliveryAttemptsExceeded' as const, endedAt: 2 };

/** One message body of every kind (the type makes leaving a kind out a compile error). */
const SAMPLES: Record<JobKind, string> = {
  deliver: packJobs({ target }, [item('e1', 1), item('e2', 1)])[0] as string,
  validate: validationJobBody({ target, code: 'c-1', validationUrl: 'https://api.example.test/v?c=1' }),
  fanout: packFanOut(target.topic, [item('e1', 1)], [{ target, matched: [0] }]),
  'stored-fanout': storedFanOutBody(target.topic, 'fanouts/2026-01-01/p-1.json', 1234),
  ended: packEndedJobs(deadLetterTargetSchema.parse(deliveryTarget({ deadLetter: { container: 'dead' } })), [
    ended,
  ])[0] as string,
  store: packStoreJobs({ target, dueAt: 5, heldBy: 'probation' }, [item('e1', 1)])[0] as string,
  'backlog-tick': backlogTickBody(target, 'token-1'),
  ordered: packOrderedJobs({ target, key: 'k' }, [item('e1', 1)])[0] as string,
  archive: archiveJobBody(target.topic),
  'replay-page': replayPageJobBody(target.topic),
};

/** The kinds each consuming function takes, as the functions declare them. */
const CONSUMER_KINDS: Partial<Record<FunctionKey, readonly JobKind[]>> = {
  delivery: DELIVERY_JOB_KINDS,
  deadLetter: DEAD_LETTER_JOB_KINDS,
};

const QUEUE_KEYS = Object.keys(QUEUES) as QueueKey[];

describe('the job-kind table', () => {
  it('has an entry for every shape the queues carry, and only those', () => {
    const schemas: unknown[] = Object.values(JOB_SCHEMAS);
    expect(new Set(schemas).size).toBe(schemas.length);
    expect(schemas).toHaveLength(QUEUED_JOB_SCHEMAS.length);
    for (const schema of QUEUED_JOB_SCHEMAS) expect(schemas).toContain(schema);
    expect(Object.keys(JOB_SCHEMAS).sort()).toEqual(Object.keys(SAMPLES).sort());
    expect(Object.keys(JOB_REGISTRY).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(Object.keys(SAMPLES) as JobKind[])(
    'reads a %s message by its entry, as a job of that kind',
    (kind) => {
      const body = SAMPLES[kind];
      const job = parseJob(body);
      expect(kindOf(job)).toBe(kind);
      expect(claimedKind(JSON.parse(body))).toBe(kind);
      expect(job).toEqual(JOB_SCHEMAS[kind].parse(JSON.parse(body)));
    },
  );

  it("the registry gives every kind its wire entry, the queues that carry it and, on each, a step of that queue's consumer", () => {
    for (const [kind, entry] of Object.entries(JOB_REGISTRY) as [JobKind, (typeof JOB_REGISTRY)[JobKind]][]) {
      expect(entry.schema).toBe(JOB_SCHEMAS[kind]);
      const queues = Object.keys(entry.steps) as QueueKey[];
      expect([kind, queues.length > 0]).toEqual([kind, true]);
      for (const queue of queues) {
        expect(QUEUE_KEYS).toContain(queue);
        const step = entry.steps[queue];
        expect([kind, queue, step?.consumer]).toEqual([kind, queue, QUEUES[queue].consumer.function]);
        // One function runs a kind by one step, whichever of its queues it came on.
        expect(stepFor(kind, QUEUES[queue].consumer.function as 'delivery' | 'deadLetter')).toBe(step);
      }
    }
    expect(queuesCarrying('ended').sort()).toEqual(['endedDelivery', 'retry']);
    expect(kindsCarriedBy('endedDelivery')).toEqual(['ended']);
    expect(stepFor('store', 'delivery')?.batched).toBe(true);
    // Delivery jobs and fan-outs are worked together (their due jobs merged per subscription).
    expect(stepFor('deliver', 'delivery')?.batched).toBe(true);
    expect(stepFor('fanout', 'delivery')).toBe(stepFor('deliver', 'delivery'));
    expect(stepFor('validate', 'delivery')?.batched).toBe(false);
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
    // A delivery job's target has no dead-letter place; an ended job's must have one.
    expect(() => parseJob(body)).toThrow(/^job message is malformed at target.deadLetter: /);
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

  it('names a namespace topic in logs by its storage text', () => {
    const namespaceTarget = deliveryTarget({ topic: 'shop/orders' });
    expect(namespaceTarget.topic).toEqual({ namespace: 'shop', name: 'orders' });
    expect(
      jobLogFields(parseJob(packJobs({ target: namespaceTarget }, [item('e1', 1)])[0] as string)),
    ).toEqual({
      topic: 'shop/orders',
      subscription: 'audit',
      events: 1,
    });
    expect(
      jobLogFields(parseJob(storedFanOutBody(namespaceTarget.topic, 'fanouts/2026-01-01/p-2.json', 9))),
    ).toEqual({ topic: 'shop/orders', events: 0 });
  });
});
