/**
 * `GET /admin/egress`: where requests to endpoints leave from, for receivers to allow-list: the
 * fixed public addresses the stack's `egress` prop gave them (its NAT gateways' Elastic IPs, or
 * the ones named for an existing VPC), and whether they go through a proxy.
 */
import { jsonResult } from '../http/api-gateway';
import type { EndpointRuleDeps } from './deps';
import type { Operations } from './operation';

/** What the route answers. */
export interface EgressDocument {
  /** The fixed public addresses; empty: none (Lambda's shared pool on AWS, this machine locally). */
  addresses: string[];
  /** Whether the addresses are fixed (some are known). */
  staticAddresses: boolean;
  /** Whether requests go through an egress proxy (which then is what receivers see). */
  proxy: boolean;
}

export const egressDocumentOf = (
  deps: Pick<EndpointRuleDeps, 'egressAddresses' | 'egressProxy'>,
): EgressDocument => {
  const addresses = [...(deps.egressAddresses ?? [])];
  return { addresses, staticAddresses: addresses.length > 0, proxy: deps.egressProxy ?? false };
};

export const egressOperations: Operations<EndpointRuleDeps> = {
  'GET /admin/egress': async (_event, deps) => jsonResult(200, egressDocumentOf(deps)),
};
