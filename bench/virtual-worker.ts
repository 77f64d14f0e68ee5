/**
 * What the virtual-time benches (`held.ts`, `simulation.ts`) give a delivery worker of the parts
 * they have no use for: their subscriptions are webhooks without secrets, validated, never fanned
 * out through a stored body, and no request outlives its timeout. Any use of one of these parts
 * fails, as it would on a worker without it.
 */
import { resourceFailure } from '../shared/delivery/resource-sender';
import type { DeliveryWorkerDeps } from '../shared/delivery/worker';

export const UNUSED_WORKER_PARTS: Pick<
  DeliveryWorkerDeps,
  'sealer' | 'lateAnswers' | 'resources' | 'handshake' | 'fanOuts'
> = {
  sealer: 'none',
  lateAnswers: 'none',
  resources: {
    send: async (_destination, messages) =>
      messages.map(() => resourceFailure('NoResourceSender', 'a virtual run delivers to webhooks only', 0)),
  },
  handshake: {
    run: async () => {
      throw new Error('a virtual run has no endpoint handshake');
    },
  },
  fanOuts: {
    get: async () => {
      throw new Error('a virtual run stores no fan-outs');
    },
  },
};
