/**
 * Every benchmark scenario, in the order a run takes them: the machine's reference rates first
 * (when a throughput scenario runs), the virtual-time models, the scenarios that share one warmed
 * stack (latency to ordered delivery, consecutive so the stack is started once), then
 * those with a stack of their own.
 */
import { archive } from '../scenarios/archive';
import { batching } from '../scenarios/batching';
import { bill } from '../scenarios/bill';
import { crowd } from '../scenarios/crowd';
import { deadEndpoint } from '../scenarios/dead-endpoint';
import { deadLetters } from '../scenarios/dead-letters';
import { deduplication } from '../scenarios/deduplication';
import { failures } from '../scenarios/failures';
import { filters } from '../scenarios/filters';
import { fuzz } from '../scenarios/fuzz';
import { held24h } from '../scenarios/held-24h';
import { latency } from '../scenarios/latency';
import { memory } from '../scenarios/memory';
import { messageLog } from '../scenarios/message-log';
import { ordered } from '../scenarios/ordered';
import { overload } from '../scenarios/overload';
import { rateLimited } from '../scenarios/rate-limited';
import { recovery } from '../scenarios/recovery';
import { reference } from '../scenarios/reference';
import { simulation } from '../scenarios/simulation';
import { soak } from '../scenarios/soak';
import { sources } from '../scenarios/sources';
import { sqsDestination } from '../scenarios/sqs-destination';
import { stackMemory } from '../scenarios/stack-memory';
import { throughput } from '../scenarios/throughput';
import { validation } from '../scenarios/validation';
import type { Scenario } from './types';

export const SCENARIOS: readonly Scenario[] = [
  reference,
  simulation,
  held24h,
  validation,
  latency,
  throughput,
  batching,
  filters,
  messageLog,
  deduplication,
  archive,
  ordered,
  overload,
  failures,
  deadEndpoint,
  crowd,
  deadLetters,
  rateLimited,
  sqsDestination,
  recovery,
  bill,
  sources,
  memory,
  stackMemory,
  fuzz,
  soak,
];
