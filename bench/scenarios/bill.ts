/**
 * The honest AWS bill: every line item of running the stack, per million delivered events, for
 * webhooks that take 10 ms, 100 ms and 1 s to answer, published 100 or 1 per request, with and
 * without output batching; the same work at Event Grid's and EventBridge's list prices; and the
 * fixed monthly costs of the stack, a topic and a subscription.
 *
 * Measured in the run: AWS requests, Lambda invocations and durations (the delivery function
 * waits on the webhook), webhook bytes on arrival at the sink, the JSON lines the handlers'
 * loggers write, the metric points they flush, and each function's cold start (bundled as the
 * construct bundles it). Read from the synthesized CDK template: memory, log format and levels,
 * tracing, the delivery concurrency, the access log format, retention, alarms, dashboards,
 * secrets and keys. Assumed, and stated in the details: cold starts per million events, X-Ray's
 * default sampling rule, the TCP/TLS overhead per request and the stored share of log bytes.
 *
 * By phase: what it assumes and the set-up in `bill-setup.ts`, the cases and their runs in
 * `bill-cases.ts`, the figures and details in `bill-figures.ts`.
 */
import type { Scenario } from '../harness/types';
import { measureBillCases } from './bill-cases';
import { billResult } from './bill-figures';
import { billSetUp } from './bill-setup';

export const bill: Scenario = {
  name: 'bill',
  description:
    'the all-in AWS bill per million events (every line item), 10 ms / 100 ms / 1 s webhooks, 100 or 1 per request, batching, fixed monthly costs',
  uses: ['sink', 'loadGenerator'],
  async run(ctx) {
    const setUp = await billSetUp(ctx.quick);
    const measured = await measureBillCases(ctx, setUp);
    return { results: [billResult(setUp, measured)] };
  },
};
