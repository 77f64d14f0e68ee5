/** The retry engine in virtual time, with backlogs: every wait checked against the schedule. */
import { log } from '../harness/log';
import type { Scenario } from '../harness/types';
import { runSimulation } from '../simulation';
import { PARKED } from '../simulation-workload';

export const simulation: Scenario = {
  name: 'simulation',
  description:
    'the real delivery engine with backlogs in virtual time: 1,000 events, scripted endpoints, 48 hours',
  uses: [],
  async run() {
    log(
      'simulation: 1,000 events against scripted endpoints, and 200 to one parked endpoint, over 48 virtual hours',
    );
    const result = await runSimulation({ events: 1000, hours: 48 });
    const { parked } = result;
    const parkedSettled =
      parked.delivered +
      (parked.ended.TimeToLiveExceeded ?? 0) +
      (parked.ended.MaxDeliveryAttemptsExceeded ?? 0);
    return {
      results: [
        {
          name: 'simulation',
          description: `The real delivery engine in virtual time, keeping backlogs as on AWS (long waits and an unhealthy endpoint's events stored; the backlog queue's consumer storing a 60 s window at a time; ticks on the retry queue; a sweep every minute): 1,000 events, each to a subscription of its own, over 7 scripted endpoint patterns, and ${parked.events} events to one subscription whose endpoint (${PARKED.name}) answers 503 for 6 hours, then 200; 48 simulated hours. A wait is off schedule when an attempt comes before its step or later than step + jitter bound + 1 s; waits where a hold (probation) applied are not checked against the schedule. Every attempt is also checked against the due time its event had when it was last queued or stored.`,
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
              metric: 'attempts before their due time',
              value: result.early,
              unit: 'attempts',
              goal: '0',
              met: result.early === 0,
            },
            {
              metric: 'largest wait beyond its step / allowed (jitter + SQS rounding)',
              value: `${result.maxJitterMs} / ${result.maxJitterBoundMs}`,
              unit: 'ms',
            },
            { metric: 'SQS hops for waits over 15 min', value: result.hops, unit: 'hops' },
            {
              metric:
                'events stored in a backlog (not the parked endpoint) / store invocations / ticks / sweeps',
              value: `${result.stored} / ${result.storeInvocations} / ${result.ticks} / ${result.sweeps}`,
              unit: '',
            },
            {
              metric: `${PARKED.name}: requests while unhealthy / probations that ended`,
              value: `${parked.requestsWhileUnhealthy} / ${parked.probationEnds}`,
              unit: 'requests',
              goal: 'about one probe per probation end',
              met: Math.abs(parked.requestsWhileUnhealthy - parked.probationEnds) <= 1,
            },
            {
              metric: `${PARKED.name}: events delivered after recovery or ended by TTL / max attempts`,
              value: `${parkedSettled} of ${parked.events}`,
              unit: 'events',
              goal: 'all',
              met: parkedSettled === parked.events,
            },
            {
              metric: `${PARKED.name}: events that went through the backlog / segments written`,
              value: `${parked.throughBacklog} / ${parked.segments}`,
              unit: '',
            },
            {
              metric: `${PARKED.name}: last delivery after the endpoint recovered`,
              value: Math.round(parked.lastDeliveredAfterRecoveryHours * 60),
              unit: 'min',
            },
            { metric: 'wall time', value: result.wallMs, unit: 'ms' },
          ],
          details: result as unknown as Record<string, unknown>,
        },
      ],
    };
  },
};
