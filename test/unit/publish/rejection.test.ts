/**
 * The HTTP answer to each refusal of the publish rules: the status, error code and body the
 * original service gives, made in one place (`apiErrorOf`) and given by the publish handler, with
 * the failure counted under the same error type and code as before.
 */
import { apiErrorOf } from '../../../functions/publish';
import { METRIC } from '../../../shared/observability/metrics';
import type { Publisher } from '../../../shared/publish/publisher';
import {
  PublishRejection,
  REJECTION_CODES,
  type RejectionCode,
  type RejectionKind,
} from '../../../shared/publish/rejection';
import { publishHandler, topicPublish } from '../../support/publish-handler';

/** What each kind of refusal is answered with (the original service's status and error code). */
const EXPECTED = {
  invalid: { status: 400, code: 'BadRequest' },
  tooLarge: { status: 413, code: 'PayloadTooLarge' },
} as const satisfies Record<RejectionKind, { status: number; code: string }>;

const EVERY_CODE = (Object.keys(REJECTION_CODES) as RejectionKind[]).flatMap((kind) =>
  REJECTION_CODES[kind].map((code: RejectionCode) => [kind, code] as const),
);

const MESSAGE = "Event at index 3: member 'subject' is required.";

it('covers every code the publish rules refuse with', () => {
  expect(EVERY_CODE).toEqual([
    ['invalid', 'InputJsonInvalid'],
    ['invalid', 'InvalidContentType'],
    ['invalid', 'NoEvents'],
    ['invalid', 'TooManyEvents'],
    ['invalid', 'EventDataInvalid'],
    ['invalid', 'UnknownEventType'],
    ['tooLarge', 'PayloadTooLarge'],
    ['tooLarge', 'TooManyDeliveries'],
  ]);
});

describe.each(EVERY_CODE)('a %s rejection with code %s', (kind, code) => {
  const rejection = new PublishRejection(kind, code, MESSAGE);
  const expectedBody = {
    error: { code: EXPECTED[kind].code, message: MESSAGE, details: [{ code, message: MESSAGE }] },
  };

  it('becomes the answer with its status, error code, and its code as the one detail', () => {
    const answer = apiErrorOf(rejection);
    expect({
      status: answer.statusCode,
      body: answer.toBody(),
      retryAfter: answer.retryAfterSeconds,
    }).toEqual({
      status: EXPECTED[kind].status,
      body: expectedBody,
      retryAfter: undefined,
    });
  });

  it('is answered so by the publish handler, and counted by that error type and code', async () => {
    const refusing = {
      publish: async () => {
        throw rejection;
      },
    } as unknown as Publisher;
    const { call, points } = publishHandler(refusing);

    const answer = await call(topicPublish('orders', 'key-one', 'application/json', '[]'));

    expect(answer).toEqual({
      statusCode: EXPECTED[kind].status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(expectedBody),
    });
    const failures = points.filter((point) => point.name === METRIC.PublishFailCount);
    expect(failures.map((point) => point.dimensions)).toEqual([
      {},
      { Topic: 'orders' },
      { ErrorType: EXPECTED[kind].code, Error: code },
    ]);
  });
});
