/**
 * Which hosts a SigV4-signed delivery (`auth: {type: 'AwsSigV4', service}`) may be signed for.
 * The signature is made with the delivery function's own role, so a subscription that could aim it
 * at any host could make that role call any AWS API a signed POST reaches: with `lambda`, the
 * Lambda Invoke API (`lambda.<region>.amazonaws.com`); with others, SQS, DynamoDB or STS. Each
 * service may therefore sign only for the endpoints it exists for:
 *
 * - `execute-api`: an API Gateway endpoint, `<api id>.execute-api.<region>.amazonaws.com`
 *   (`.amazonaws.com.cn` in the China regions);
 * - `lambda`: a Lambda function URL, `<url id>.lambda-url.<region>.on.aws`.
 *
 * A custom domain in front of either is refused: its name says nothing about what answers it, so
 * signing for it would be signing for any host again. The rule is checked when a subscription is
 * written (a 400) and again before every signature (`../endpoint-auth.ts`), so a subscription
 * stored before the rule can't be signed for a forbidden host either. Locally (the local stack's
 * emulator credentials sign nothing AWS accepts) loopback hosts are allowed too, so a test endpoint
 * can check signatures.
 */
import type { SIGV4_SERVICES } from '../../domain/destination';
import { classifyHost } from './endpoint-address';

export type SigV4Service = (typeof SIGV4_SERVICES)[number];

/** A region name, `eu-west-1`, `us-gov-west-1`, `cn-north-1`. */
const REGION = '([a-z]{2}(?:-[a-z]+)+-\\d{1,2})';

/** Per service, the hosts it signs for (the first group is the region) and their shape in words. */
export const SIGV4_HOSTS: Readonly<
  Record<SigV4Service, { readonly pattern: RegExp; readonly shape: string }>
> = {
  'execute-api': {
    pattern: new RegExp(`^[a-z0-9-]+\\.execute-api\\.${REGION}\\.amazonaws\\.com(?:\\.cn)?$`),
    shape: 'an API Gateway endpoint, <api id>.execute-api.<region>.amazonaws.com (or .amazonaws.com.cn)',
  },
  lambda: {
    pattern: new RegExp(`^[a-z0-9]+\\.lambda-url\\.${REGION}\\.on\\.aws$`),
    shape: 'a Lambda function URL, <url id>.lambda-url.<region>.on.aws',
  },
};

/** The service and region an AWS endpoint's host name names, when it is one SigV4 may sign for. */
export function sigV4HostOf(host: string): { service: SigV4Service; region: string } | undefined {
  const name = host.toLowerCase();
  for (const service of Object.keys(SIGV4_HOSTS) as SigV4Service[]) {
    const region = SIGV4_HOSTS[service].pattern.exec(name)?.[1];
    if (region !== undefined) return { service, region };
  }
  return undefined;
}

/** Whether a host is this machine: `localhost`, `*.localhost`, or a loopback address. */
const isLoopback = (host: string): boolean => {
  const kind = classifyHost(host);
  return (
    kind.kind === 'loopback-name' ||
    (kind.kind === 'address' && !kind.address.public && kind.address.range === 'loopback')
  );
};

export interface SigV4HostOptions {
  /** Loopback hosts may be signed for too (the local stack, whose credentials AWS never accepts). */
  readonly allowLoopback: boolean;
}

/**
 * Why a request to `url` may not be signed for `service` (and `region`, when the subscription
 * names one), or `undefined` when it may: the host must be one of the service's own endpoints,
 * and a region given must be the host's.
 */
export function sigV4HostProblem(
  service: SigV4Service,
  url: string,
  options: SigV4HostOptions,
  region?: string,
): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return 'the endpoint URL is not a URL';
  }
  if (options.allowLoopback && isLoopback(host)) return undefined;
  const found = sigV4HostOf(host);
  if (found?.service !== service) {
    return (
      `SigV4 with service '${service}' signs only for ${SIGV4_HOSTS[service].shape}; ` +
      `the endpoint's host ${host} is not one (a custom domain in front of it can't be signed for: use the ${service === 'lambda' ? 'function URL' : 'execute-api host'} itself)`
    );
  }
  if (region !== undefined && region !== found.region) {
    return `the region ${region} is not the endpoint's (${found.region}, from its host ${host}): leave region out, or give ${found.region}`;
  }
  return undefined;
}
