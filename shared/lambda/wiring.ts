/**
 * Builds each function's dependencies from configuration. Lambda (from environment variables)
 * and the local stack (from its own options) go through these same builders: the delivery
 * function's here, the others' in `wiring/` (one module per function), on what they share
 * (`wiring/runtime.ts`, `wiring/observability.ts`).
 */

export {
  buildDeliveryWorker,
  cachedSubscriptions,
  HEALTH_FLUSH_INTERVAL_MS,
} from './wiring/delivery';
export {
  createObservability,
  type Observability,
  type ObservabilityOptions,
} from './wiring/observability';
export type { Runtime } from './wiring/runtime';
