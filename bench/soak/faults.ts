/**
 * The soak's fault schedule: when, in a run of a given length, each fault begins and how long it
 * lasts. Spread over the run so each lands under load with time after it to recover, one after
 * another but for the dead endpoint, which stays dead while the stack's faults go on; the long
 * ones shortened in a short run (the dead endpoint is down for 10 minutes, or a third of the run
 * if that is less; the table outage 60 s, or a tenth).
 */

export type FaultKind =
  | 'rotate-topic-keys'
  | 'kill-emulator'
  | 'endpoint-dead'
  | 'pause-subscription'
  | 'edit-subscriptions'
  | 'table-outage'
  | 'kill-stack'
  | 'rotate-signing-secret';

export interface ScheduledFault {
  readonly kind: FaultKind;
  /** Ms after the load began. */
  readonly atMs: number;
  /** How long it lasts (0: an instant change, or as long as a restart takes). */
  readonly forMs: number;
  /** What it does, for the report. */
  readonly description: string;
  /** It runs beside the faults after it (a state of an endpoint's, not of the stack's). */
  readonly concurrent?: boolean;
}

export function faultSchedule(loadMinutes: number): ScheduledFault[] {
  const runMs = loadMinutes * 60_000;
  const at = (fraction: number) => Math.round(runMs * fraction);
  const deadMs = Math.min(10 * 60_000, Math.round(runMs / 3));
  const tableMs = Math.min(60_000, Math.round(runMs / 10));
  const pauseMs = Math.min(60_000, Math.round(runMs / 20));
  const faults: ScheduledFault[] = [
    {
      kind: 'rotate-topic-keys',
      atMs: at(0.08),
      forMs: 0,
      description: 'topic keys rotated: key2 regenerated, publishers moved to it, then key1 regenerated',
    },
    {
      kind: 'kill-emulator',
      atMs: at(0.14),
      forMs: 0,
      description:
        'the emulator process SIGKILLed (the stack exits with status 1), the stack started again on its data directory',
    },
    {
      kind: 'endpoint-dead',
      atMs: at(0.2),
      forMs: deadMs,
      concurrent: true,
      description: `the "comeback" endpoint answers 503 for ${Math.round(deadMs / 1000)} s, then 200 again`,
    },
    {
      kind: 'pause-subscription',
      atMs: at(0.3),
      forMs: pauseMs,
      description: `the "batched" subscription paused for ${Math.round(pauseMs / 1000)} s, then resumed`,
    },
    {
      kind: 'edit-subscriptions',
      atMs: at(0.36),
      forMs: 0,
      description:
        'two subscriptions edited under load: "flaky" gets a new endpoint URL, "limited" a new rate limit',
    },
    {
      kind: 'table-outage',
      atMs: at(0.45),
      forMs: tableMs,
      description: `DynamoDB unreachable for ${Math.round(tableMs / 1000)} s (every connection to the emulator reset)`,
    },
    {
      kind: 'kill-stack',
      atMs: at(0.6),
      forMs: 0,
      description: 'the whole stack (its process group) SIGKILLed, then started again on its data directory',
    },
    {
      kind: 'rotate-signing-secret',
      atMs: at(0.7),
      forMs: 0,
      description: 'the "signed" subscription given a new signing secret',
    },
    {
      kind: 'kill-stack',
      atMs: at(0.82),
      forMs: 0,
      description: 'the whole stack SIGKILLed again, then started again on its data directory',
    },
  ];
  return faults;
}
