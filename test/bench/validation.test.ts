/**
 * The validation scenario's model: its 20-field data matches its 20-field schema (so the "on"
 * runs validate and pass, never stop at a refusal), its parse-and-check step validates only with
 * validation on and compiles the schema once, and its measurement and figures are sane on a
 * small run.
 */

import { validationFigures } from '../../bench/scenarios/validation';
import {
  benchCatalog,
  DATA_FIELDS,
  measureValidationCost,
  orderData,
  parseAndCheck,
  requestBody,
  twentyFieldSchema,
} from '../../bench/validation';
import { PublishRejection } from '../../shared/publish/rejection';

describe('the validation workload', () => {
  it('has 20 fields in its data and its schema, and the data matches', () => {
    expect(Object.keys(orderData(1))).toHaveLength(DATA_FIELDS);
    expect(Object.keys(twentyFieldSchema().properties as object)).toHaveLength(DATA_FIELDS);
    const catalog = benchCatalog();
    expect(parseAndCheck(requestBody(100), true, catalog)).toHaveLength(100);
    expect(catalog.compiled).toBe(1);
    parseAndCheck(requestBody(100, 100), true, catalog);
    expect(catalog.compiled).toBe(1);
  });

  it('checks with validation on only', () => {
    const catalog = benchCatalog();
    const wrong = Buffer.from(
      JSON.stringify([
        {
          id: 'x',
          subject: 's',
          eventType: 'Order.Created',
          eventTime: '2026-12-01T10:00:00Z',
          data: { total: -1 },
        },
      ]),
    );
    expect(() => parseAndCheck(wrong, true, catalog)).toThrow(PublishRejection);
    expect(() => parseAndCheck(wrong, false, catalog)).not.toThrow();
  });

  it('measures CPU per event both ways and the compile, and makes its figures', () => {
    const cost = measureValidationCost({ eventsPerRequest: 10, requests: 2, rounds: 3 });
    expect(cost.offMicrosPerEvent).toBeGreaterThan(0);
    expect(cost.onMicrosPerEvent).toBeGreaterThan(0);
    expect(cost.addedMicrosPerEvent).toBeCloseTo(cost.onMicrosPerEvent - cost.offMicrosPerEvent, 6);
    expect(cost.compileMs).toBeGreaterThan(0);
    expect(validationFigures(cost).map((figure) => figure.metric)).toEqual([
      'publish parse CPU per event, validation off',
      'publish parse + validate CPU per event, validation on',
      'validation adds per event',
      'validation adds, share of the step',
      'schema compile, once per catalog version',
    ]);
  });
});
