/** The retry engine in virtual time: every wait checked against the schedule. */
import { log } from '../harness/log';
import type { Scenario } from '../harness/types';
import { runSimulation } from '../simulation';

export const simulation: Scenario = {
  name: 'simulation',
  description: 'the real delivery engine in virtual time: 1,000 events, scripted endpoints, 48 hours',
  uses: [],
  async run() {
    log('simulation: 1,000 events against scripted endpoints over 48 virtual hours');
    const result = await runSimulation({ events: 1000, hours: 48 });
    return {
      results: [
        {
          name: 'simulation',
          description:
            'The real delivery engine in virtual time: 1,000 events, 7 scripted endpoint patterns, 48 simulated hours.',
          figures: [
            { metric: 'waits checked against the schedule', value: result.waitsChecked, unit: 'waits' },
            {
              metric: 'waits outside [step, step + jitter bound + 1 s of SQS rounding]',
              value: result.violations,
              unit: 'waits',
              goal: '0',
              met: result.violations === 0,
            },
            {
              metric: 'largest wait beyond its step / allowed (jitter + SQS rounding)',
              value: `${result.maxJitterMs} / ${result.maxJitterBoundMs}`,
              unit: 'ms',
            },
            { metric: 'SQS hops for waits over 15 min', value: result.hops, unit: 'hops' },
            { metric: 'wall time', value: result.wallMs, unit: 'ms' },
          ],
          details: result as unknown as Record<string, unknown>,
        },
      ],
    };
  },
};
