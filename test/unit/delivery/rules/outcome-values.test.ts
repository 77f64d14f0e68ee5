/**
 * Seed 003 (delivery and retry), the table after "Here are the possible values of
 * `lastDeliveryOutcome` and their descriptions": every value is either reported by Gridwire,
 * with when and for which destinations, or listed as not reported, with why, in
 * docs/CONFORMANCE.md; and the reported ones are exactly those the code can produce. The
 * produced values are read from every table that maps an attempt onto an outcome (webhook
 * statuses, errors thrown while sending, AWS service errors, the health gate's holds) and from
 * the outcomes the delivery code names outside them, so a table that gains an outcome the
 * document does not report fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stampProbation } from '../../../../shared/delivery/rules/decide';
import {
  classifyError,
  ERROR_CODE_OUTCOMES,
  isSuccessStatus,
  outcomeForStatus,
} from '../../../../shared/delivery/rules/outcomes';
import { RESOURCE_ERROR_RULES, resourceErrorRuleOf } from '../../../../shared/delivery/rules/resource-errors';
import { DELIVERY_OUTCOMES, type DeliveryOutcome } from '../../../../shared/domain/model';
import { item } from '../../../support/fakes';

const ROOT = join(__dirname, '../../../..');

/** The values the original's page lists (GenericError is Gridwire's own). */
const PAGE_VALUES = DELIVERY_OUTCOMES.filter((outcome) => outcome !== 'GenericError');

const section = readFileSync(join(ROOT, 'docs/CONFORMANCE.md'), 'utf8').split(
  '## `lastDeliveryOutcome` values',
)[1];
const [reportedTable = '', notReportedTable = ''] = (section?.split('## ')[0] ?? '').split('Not reported');
const firstColumn = (table: string) =>
  [...table.matchAll(/^\| (\w+) \|/gm)]
    .map(([, value]) => value as string)
    .filter((value) => value !== 'value');

/** The kinds of destination the reported table has a column for, in its order. */
const KINDS = ['webhooks', 'resources'] as const;
type Kind = (typeof KINDS)[number];

/** The reported table's rows: the value, and what each kind's column says ("never..." or when). */
const reportedRows = [...reportedTable.matchAll(/^\| (\w+) \| (.*?) \| (.*?) \|$/gm)]
  .filter(([, value]) => value !== 'value')
  .map(([, value, webhooks, resources]) => ({
    value: value as string,
    said: { webhooks: webhooks as string, resources: resources as string },
  }));
const never = (cell: string) => /^never\b/.test(cell);

/** One table that maps attempts onto outcomes: the kinds it serves, and each input it maps. */
interface Source {
  readonly table: string;
  readonly kinds: readonly Kind[];
  readonly produced: readonly { readonly input: string; readonly outcome: DeliveryOutcome }[];
}

const statuses = Array.from({ length: 500 }, (_, index) => 100 + index).filter(
  (status) => !isSuccessStatus(status),
);

/** Outcomes the delivery code names where it builds a result (`outcome: 'X'`), outside the tables. */
function namedInCode(): Source['produced'] {
  const found: { input: string; outcome: DeliveryOutcome }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else if (path.endsWith('.ts')) {
        for (const [, name] of readFileSync(join(ROOT, path), 'utf8').matchAll(/\boutcome: '(\w+)'/g)) {
          if ((DELIVERY_OUTCOMES as readonly string[]).includes(name as string))
            found.push({ input: path, outcome: name as DeliveryOutcome });
        }
      }
    }
  };
  for (const dir of ['shared', 'functions']) visit(dir);
  return found;
}

const SOURCES: readonly Source[] = [
  {
    table: 'outcomeForStatus (a webhook answer that is not a success, 100 to 599)',
    kinds: ['webhooks'],
    produced: statuses.map((status) => ({ input: `status ${status}`, outcome: outcomeForStatus(status) })),
  },
  {
    table: 'ERROR_CODE_OUTCOMES and classifyError (an error thrown while sending to a webhook)',
    kinds: ['webhooks'],
    produced: [
      ...Object.keys(ERROR_CODE_OUTCOMES).flatMap((code) => [
        { input: `code ${code}`, outcome: classifyError({ code }).outcome },
        { input: `name ${code}`, outcome: classifyError({ name: code }).outcome },
        {
          input: `cause ${code}`,
          outcome: classifyError(new Error('fetch failed', { cause: { code } })).outcome,
        },
      ]),
      { input: 'an error with no code', outcome: classifyError(new Error('an error with no code')).outcome },
    ],
  },
  {
    table: 'RESOURCE_ERROR_RULES (an AWS service error of a resource destination)',
    kinds: ['resources'],
    produced: [
      ...Object.keys(RESOURCE_ERROR_RULES).map((name) => ({
        input: name,
        outcome: resourceErrorRuleOf(name).outcome,
      })),
      // Any error the rules do not name (a function error, an SDK timeout...).
      { input: 'FunctionError', outcome: resourceErrorRuleOf('FunctionError').outcome },
    ],
  },
  {
    table: "stampProbation (an event held by its endpoint's health gate)",
    kinds: ['webhooks', 'resources'],
    produced: [
      {
        input: 'a held event',
        outcome: stampProbation(item('e-1', Date.UTC(2026, 10, 25))).lastOutcome as DeliveryOutcome,
      },
    ],
  },
  { table: "the delivery code's own results (`outcome: '...'`)", kinds: [], produced: namedInCode() },
];

/** Everything the code maps an attempt onto. */
const producible = (): Set<DeliveryOutcome> =>
  new Set(SOURCES.flatMap(({ produced }) => produced.map(({ outcome }) => outcome)));

/** The inputs of `sources` that produce `value`, named with their table. */
const producersOf = (value: string, sources: readonly Source[] = SOURCES) =>
  sources.flatMap(({ table, produced }) =>
    produced.filter(({ outcome }) => outcome === value).map(({ input }) => `${table}: ${input}`),
  );

describe('lastDeliveryOutcome values', () => {
  it("lists every value of the page once, as reported or not, and Gridwire's own GenericError", () => {
    const listed = [...firstColumn(reportedTable), ...firstColumn(notReportedTable)];
    expect([...listed].sort()).toEqual([...DELIVERY_OUTCOMES].sort());
    expect(PAGE_VALUES).toHaveLength(17);
  });

  it('reads every table: each produces something, and the code names outcomes outside them', () => {
    for (const source of SOURCES)
      expect({ table: source.table, produced: source.produced.length > 0 }).toEqual({
        table: source.table,
        produced: true,
      });
  });

  it.each(SOURCES.map((source) => [source.table, source] as const))(
    'reports every outcome of %s',
    (_table, source) => {
      const reported = new Set(firstColumn(reportedTable));
      const missing = source.produced.filter(({ outcome }) => !reported.has(outcome));
      expect(missing).toEqual([]);
    },
  );

  it('lists as not reported only values no table produces', () => {
    for (const value of firstColumn(notReportedTable)) {
      expect({ value, producedBy: producersOf(value) }).toEqual({ value, producedBy: [] });
    }
  });

  it('reports exactly the values the code produces', () => {
    expect(firstColumn(reportedTable).sort()).toEqual([...producible()].sort());
  });

  it.each(KINDS)(
    'says "never" in the %s column exactly for the values no table of theirs produces',
    (kind) => {
      const theirs = SOURCES.filter((source) => source.kinds.includes(kind));
      expect(reportedRows.map(({ value }) => value).sort()).toEqual(firstColumn(reportedTable).sort());
      for (const { value, said } of reportedRows) {
        const producedBy = producersOf(value, theirs);
        expect({ value, column: kind, never: never(said[kind]) }).toEqual({
          value,
          column: kind,
          never: producedBy.length === 0,
        });
      }
    },
  );
});
