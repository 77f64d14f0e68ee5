/**
 * What event validation costs a publish: the CPU time per event of the publish path's parse and
 * check, for Event Grid events with 20-field data on a topic with `validateEvents` (its catalog's
 * 20-field schema compiled once) and on one without, in this process (`../validation.ts`); and
 * the CPU time of compiling the schema, paid once per catalog version by each publish function
 * instance. No stack: the step's own work, without its I/O.
 */
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { Figure, Scenario } from '../harness/types';
import { DATA_FIELDS, measureValidationCost, type ValidationCost } from '../validation';

/** Figures of a measurement. */
export function validationFigures(cost: ValidationCost): Figure[] {
  return [
    {
      metric: 'publish parse CPU per event, validation off',
      value: round(cost.offMicrosPerEvent, 2),
      unit: 'µs',
    },
    {
      metric: 'publish parse + validate CPU per event, validation on',
      value: round(cost.onMicrosPerEvent, 2),
      unit: 'µs',
    },
    { metric: 'validation adds per event', value: round(cost.addedMicrosPerEvent, 2), unit: 'µs' },
    { metric: 'validation adds, share of the step', value: round(cost.addedShare * 100, 1), unit: '%' },
    { metric: 'schema compile, once per catalog version', value: round(cost.compileMs, 2), unit: 'ms CPU' },
  ];
}

export const validation: Scenario = {
  name: 'validation',
  description: `Event validation: publish CPU per event (${DATA_FIELDS}-field data and schema), on vs off, in process`,
  uses: [],
  async run(ctx) {
    const options = ctx.quick
      ? { eventsPerRequest: 100, requests: 20, rounds: 5 }
      : { eventsPerRequest: 100, requests: 50, rounds: 11 };
    log(
      `validation: ${options.rounds} rounds of ${options.requests} requests of ${options.eventsPerRequest} events, validation off and on`,
    );
    const cost = measureValidationCost(options);
    return {
      results: [
        {
          name: 'validation',
          description: `The publish function's parse-and-check step (parseEvents, then checkEventData against a catalog compiled once), in this process on one core, for requests of ${options.eventsPerRequest} Event Grid events whose data has ${DATA_FIELDS} fields (strings with formats, a pattern and enums, bounded numbers, a nested object, an array of objects), on a topic with validateEvents against a ${DATA_FIELDS}-field schema and on one without; CPU time (user and system) per event, the median of ${options.rounds} alternating rounds of ${options.requests} requests after a warm-up; and the CPU time to compile the schema, which each publish function instance pays on the first event of a catalog version.`,
          figures: validationFigures(cost),
          details: { ...cost },
        },
      ],
    };
  },
};
