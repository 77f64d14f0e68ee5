/**
 * The sources scenario's figures and its result: the cost of each case per million events, every
 * line item, beside API destinations and the bill's HTTP publish cases (`sources.ts` measures).
 */
import { LAMBDA_RECEIVE_WAIT_SECONDS } from '../../local/poller';
import { SOURCE_BATCH_SIZE } from '../../shared/config/sources';
import type { BillUsage } from '../cost';
import { round } from '../harness/figures';
import type { Figure, ScenarioResult } from '../harness/types';
import { PRICES } from '../prices';
import {
  FORWARDER,
  idlePollingPerSourceQueue,
  type SourceCaseCost,
  type SourceIngestUsage,
} from '../sources';
import { type BillSetUp, COLD_STARTS_PER_MILLION_EVENTS, LAMBDA_INITIAL_POLLERS } from './bill-setup';

/** The webhook's answer time, as the bill's main cases. */
/** The webhook's answer time, as the bill's main cases. */
export const SOURCE_WEBHOOK_MS = 100;

export interface SourceCase {
  key: string;
  kind: 'sqs' | 'eventBridge';
  eventsPerMessage: number;
  producer: 'SendMessage' | 'SendMessageBatch';
  /** Messages a second the producer sends; absent: every message is queued before the pollers start (a backlog: full batches). */
  messagesPerSecond?: number;
  messages: number;
}

/** What a source case measured and how it is priced. */
export interface SourceCaseResult {
  case: SourceCase;
  ingest: SourceIngestUsage;
  delivery: BillUsage;
  cost: SourceCaseCost;
  /** Messages per publish invocation (the event source mapping's batches). */
  messagesPerInvocation: number;
  /** Billed ms per publish invocation (mean). */
  billedMsPerInvocation: number;
  /** Mean bytes of a message body. */
  messageBytes: number;
  /** Source queue -> webhook, ms (from the producer's send). */
  latencyMs: { p50: number; p99: number };
  /** AWS requests by operation: the producer's, the pollers', the publish function's. */
  requests: {
    producer: Record<string, number>;
    poller: Record<string, number>;
    publish: Record<string, number>;
  };
}

const usd = (value: number) => round(value, 4);

function sourceFigures(results: readonly SourceCaseResult[]): Figure[] {
  const figures: Figure[] = [];
  for (const r of results) {
    figures.push(
      {
        metric: `publish invocations per million events / messages per invocation / billed ms per invocation, ${r.case.key}`,
        value: `${Math.round((r.ingest.publishInvocations * 1_000_000) / r.ingest.events).toLocaleString('en-US')} / ${round(r.messagesPerInvocation, 2)} / ${round(r.billedMsPerInvocation, 1)}`,
        unit: '',
      },
      {
        metric: `all-in per million events (excluding data transfer out): ingest / delivery / total, ${r.case.key}`,
        value: `${usd(r.cost.ingest.total)} / ${usd(r.cost.delivery.totalExcludingDataTransferOut)} / ${usd(r.cost.source.totalExcludingDataTransferOut)} (${usd(r.cost.source.total)} with data transfer out)`,
        unit: 'USD',
      },
    );
  }
  const first = results[0];
  if (first !== undefined) {
    figures.push(
      {
        metric: 'EventBridge API destinations, same events (PutEvents + one invocation per event)',
        value: usd(first.cost.apiDestinations.total),
        unit: 'USD',
      },
      {
        metric: `a forwarder of your own instead (Lambda ${FORWARDER.memoryMb} MB -> HTTP publish API, one request per batch), ${first.case.key}, excluding data transfer out`,
        value: usd(first.cost.forwarder.totalExcludingDataTransferOut),
        unit: 'USD',
      },
    );
  }
  figures.push({
    metric: "fixed monthly cost per source queue (Lambda's pollers long-polling it while idle)",
    value: round(idlePollingPerSourceQueue().monthly, 2),
    unit: 'USD/month',
  });
  return figures;
}

function caseDetails(r: SourceCaseResult) {
  const lines = (option: SourceCaseCost[keyof SourceCaseCost]) => ({
    label: option.label,
    total: round(option.total, 6),
    totalExcludingDataTransferOut: round(option.totalExcludingDataTransferOut, 6),
    lines: option.lines.map((line) => ({
      ...line,
      quantity: round(line.quantity, 4),
      cost: round(line.cost, 6),
    })),
  });
  return {
    case: r.case,
    messagesPerInvocation: round(r.messagesPerInvocation, 2),
    billedMsPerInvocation: round(r.billedMsPerInvocation, 2),
    messageBytes: r.messageBytes,
    latencyMs: { p50: round(r.latencyMs.p50, 1), p99: round(r.latencyMs.p99, 1) },
    perMillion: {
      source: lines(r.cost.source),
      ingest: lines(r.cost.ingest),
      delivery: lines(r.cost.delivery),
      apiDestinations: lines(r.cost.apiDestinations),
      forwarder: lines(r.cost.forwarder),
    },
    measured: {
      ingest: {
        ...r.ingest,
        publishGbSeconds: round(r.ingest.publishGbSeconds, 4),
        publishCpuMs: round(r.ingest.publishCpuMs, 1),
        seconds: round(r.ingest.seconds, 2),
      },
      delivery: {
        events: r.delivery.events,
        lambda: r.delivery.lambda.delivery,
        sqsBilledRequests: r.delivery.sqsBilledRequests,
        sqsEmptyReceives: r.delivery.sqsEmptyReceives,
        dynamoReadUnits: r.delivery.dynamoReadUnits,
        webhookRequests: r.delivery.webhookRequests,
        webhookBytes: r.delivery.webhookBytes,
        emfRecords: r.delivery.emfRecords,
        applicationLogLines: r.delivery.applicationLogLines,
        cpuMs: round(r.delivery.cpuMs?.delivery ?? 0, 1),
      },
      awsRequests: r.requests,
    },
  };
}

export function sourcesResult(setUp: BillSetUp, results: readonly SourceCaseResult[]): ScenarioResult {
  const idle = idlePollingPerSourceQueue();
  return {
    name: 'sources',
    description: `What a topic's source (\`Source.sqs\`, \`Source.eventBridge\`) costs per million events, every line item (us-east-1 list prices taken ${PRICES.takenOn}), against EventBridge API destinations delivering the same events to the webhook, the HTTP publish API (the bill's cases) and a forwarder of your own. Measured on the local stack with the construct's settings (as the bill): a producer puts messages on a source queue of the SQS emulator, pollers behaving as Lambda's event source mapping (${LAMBDA_INITIAL_POLLERS} at first, long polls of ${LAMBDA_RECEIVE_WAIT_SECONDS} s, batches of up to ${SOURCE_BATCH_SIZE} messages, no window) invoke the publish function (bundled as the construct bundles it, in a process of its own) with each receive's messages; its source handler publishes a batch's messages together, as one publish; the delivery function (in a process of its own) delivers each event to the sink answering after ${SOURCE_WEBHOOK_MS} ms, one subscription, no batching. Counted apart: the producer's SQS requests, the pollers' receives and deletes of the source queue, the publish function's invocations and billed ms, its CPU time, its SQS requests and DynamoDB units, its metric records; the delivery side as the bill counts it.`,
    figures: sourceFigures(results),
    details: {
      cases: results.map(caseDetails),
      assumptions: {
        coldStartsPerMillionEvents: COLD_STARTS_PER_MILLION_EVENTS,
        forwarder: FORWARDER,
        idlePollingPerSourceQueue: {
          receivesPerMonth: idle.receivesPerMonth,
          monthly: round(idle.monthly, 4),
        },
        settings: setUp.settings,
      },
      prices: {
        sqsPerRequest: PRICES.sqs.perRequest,
        lambdaPerRequest: PRICES.lambda.perRequest,
        lambdaPerGbSecond: PRICES.lambda.perGbSecond,
        httpApiPerRequest: PRICES.httpApi.perRequest,
        dynamodbPerReadUnit: PRICES.dynamodb.perReadUnit,
        eventBridge: PRICES.eventBridge,
        takenOn: PRICES.takenOn,
      },
    },
  };
}
