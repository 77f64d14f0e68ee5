/**
 * Seed 003 (delivery and retry), the table after "Here are the possible values of
 * `lastDeliveryOutcome` and their descriptions": every value is either reported by Gridwire,
 * with when, or listed as not reported, with why, in docs/CONFORMANCE.md; and the reported ones
 * are exactly those the code can produce.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stampProbation } from '../../../../shared/delivery/rules/decide';
import {
  classifyError,
  ERROR_CODE_OUTCOMES,
  outcomeForStatus,
} from '../../../../shared/delivery/rules/outcomes';
import { DELIVERY_OUTCOMES, type DeliveryOutcome } from '../../../../shared/domain/model';
import { item } from '../../../support/fakes';

/** The values the original's page lists (GenericError is Gridwire's own). */
const PAGE_VALUES = DELIVERY_OUTCOMES.filter((outcome) => outcome !== 'GenericError');

const section = readFileSync(join(__dirname, '../../../../docs/CONFORMANCE.md'), 'utf8').split(
  '## `lastDeliveryOutcome` values',
)[1];
const [reportedTable = '', notReportedTable = ''] = (section?.split('## ')[0] ?? '').split('Not reported');
const firstColumn = (table: string) =>
  [...table.matchAll(/^\| (\w+) \|/gm)].map(([, value]) => value).filter((value) => value !== 'value');

/** Everything the code maps an attempt onto. */
function producible(): Set<DeliveryOutcome> {
  const found = new Set<DeliveryOutcome>();
  for (let status = 300; status < 600; status += 1) found.add(outcomeForStatus(status));
  for (const code of Object.keys(ERROR_CODE_OUTCOMES)) found.add(classifyError({ code }).outcome);
  found.add(classifyError(new Error('an error with no code')).outcome);
  const held = stampProbation(item('e-1', Date.UTC(2026, 10, 25))).lastOutcome;
  if (held !== undefined) found.add(held);
  return found;
}

describe('lastDeliveryOutcome values', () => {
  it("lists every value of the page once, as reported or not, and Gridwire's own GenericError", () => {
    const listed = [...firstColumn(reportedTable), ...firstColumn(notReportedTable)];
    expect([...listed].sort()).toEqual([...DELIVERY_OUTCOMES].sort());
    expect(PAGE_VALUES).toHaveLength(17);
  });

  it('reports exactly the values the code produces', () => {
    expect(firstColumn(reportedTable).sort()).toEqual([...producible()].sort());
  });
});
