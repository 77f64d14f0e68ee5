import { timeArgument } from '../../../cli/options';
import { responseExcerpt } from '../../../shared/delivery/webhook-sender';
import type { AttemptRecord } from '../../../shared/domain/attempts';
import { ApiError } from '../../../shared/http/errors';
import {
  deliveriesDocument,
  MAX_LOG_PAGE,
  parseTop,
  resendItem,
} from '../../../shared/management/message-log-routes';

const base: AttemptRecord = {
  topic: 't',
  subscription: 's',
  eventId: 'e',
  deliveryId: 'd1',
  publishedAt: 0,
  attempt: 1,
  at: 1000,
  outcome: 'Delivered',
  httpStatus: 200,
  next: { action: 'none' },
};

describe('the log as the API shows it', () => {
  it('lists the newest delivery first when asked, with answers, resends and whether the text is kept', () => {
    const doc = deliveriesDocument(
      [
        { ...base, response: 'ok', eventJson: '{"id":"e"}' },
        { ...base, deliveryId: 'd2', at: 5000, resendOf: 'd1' },
      ],
      { newestFirst: true },
    );
    expect(doc.value.map((delivery) => delivery.deliveryId)).toEqual(['d2', 'd1']);
    expect(doc.value[0]).toMatchObject({ resendOf: 'd1', eventLogged: false, status: 'Delivered' });
    expect(doc.value[1]).toMatchObject({
      eventLogged: true,
      attempts: [{ response: 'ok', httpStatus: 200 }],
    });
    expect(JSON.stringify(doc)).not.toContain('eventJson');
  });

  it('says NotDelivered when nothing follows a failure that ended nothing', () => {
    const doc = deliveriesDocument([{ ...base, outcome: 'Probation', next: { action: 'none' } }]);
    expect(doc.value[0]?.status).toBe('NotDelivered');
  });
});

describe('top', () => {
  it('defaults to 100 and takes 1..1000', () => {
    expect(parseTop(undefined)).toBe(100);
    expect(parseTop('1')).toBe(1);
    expect(parseTop(String(MAX_LOG_PAGE))).toBe(MAX_LOG_PAGE);
  });

  it.each(['0', '1001', '-1', '1.5', 'ten'])('refuses %s naming the field and the limit', (top) => {
    expect(() => parseTop(top)).toThrow(ApiError);
    expect(() => parseTop(top)).toThrow(/^top: must be a whole number from 1 to 1000/);
  });
});

describe('a resend', () => {
  it('is the logged event afresh: new delivery id, attempts 0, published now, marked with its origin', () => {
    const item = resendItem(
      { ...base, eventJson: '{"id":"e","dataVersion":"2.0"}', publishedAt: 1 },
      'resend-x',
      99,
    );
    expect(item).toEqual({
      deliveryId: 'resend-x',
      eventId: 'e',
      dataVersion: '2.0',
      eventJson: '{"id":"e","dataVersion":"2.0"}',
      attempts: 0,
      publishedAt: 99,
      resendOf: 'd1',
    });
    expect(resendItem({ ...base, eventJson: '{"id":"e","dataversion":"3"}' }, 'r', 0).dataVersion).toBe('3');
    expect(resendItem({ ...base, eventJson: '{"id":"e"}' }, 'r', 0).dataVersion).toBe('');
  });
});

describe('a response excerpt', () => {
  it('is the text, a character cut at the end of 1 KiB left out', () => {
    expect(responseExcerpt(Buffer.from('thanks'))).toBe('thanks');
    const cut = Buffer.concat([Buffer.from('a'.repeat(1022)), Buffer.from('é€').subarray(0, 2)]);
    expect(cut.length).toBe(1024);
    expect(responseExcerpt(cut)).toBe(`${'a'.repeat(1022)}é`);
    const cutThree = Buffer.concat([Buffer.from('a'.repeat(1022)), Buffer.from('€').subarray(0, 2)]);
    expect(responseExcerpt(cutThree)).toBe('a'.repeat(1022));
  });
});

describe('--since and --until', () => {
  const now = () => Date.parse('2026-11-28T12:00:00.000Z');

  it('take how long ago, or an ISO time as given', () => {
    expect(timeArgument('--since', now)('1h')).toBe('2026-11-28T11:00:00.000Z');
    expect(timeArgument('--since', now)('30m')).toBe('2026-11-28T11:30:00.000Z');
    expect(timeArgument('--since', now)('7d')).toBe('2026-11-21T12:00:00.000Z');
    expect(timeArgument('--since', now)('2026-11-01T00:00:00Z')).toBe('2026-11-01T00:00:00Z');
  });

  it('refuse anything else, naming the flag', () => {
    expect(() => timeArgument('--until', now)('yesterday')).toThrow(/^--until must be an ISO 8601 time/);
  });
});
