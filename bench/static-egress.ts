/**
 * What static egress addresses (the `egress` prop's `staticIps`: the delivery function in private
 * subnets behind NAT gateways with Elastic IPs) add to the bill: by the month, each NAT gateway's
 * hours and its public IPv4 address's hours (and the interface endpoints' hours when on); per
 * event, the NAT gateways' data processing of every webhook request and its answer. Data transfer
 * out is billed as without a NAT, so it is not added again. S3 and DynamoDB are reached through
 * gateway endpoints, which are free and skip the NAT; the delivery function's SQS sends and
 * Secrets Manager reads cross the NAT unless interface endpoints are on.
 */
import { wireBytes } from './cost';
import { PRICES } from './prices';

/** Hours in a month of 30 days, as the fixed monthly costs count them. */
export const HOURS_PER_MONTH = 30 * 24;
const GB = 1_000_000_000;

/** NAT gateways (and Elastic IPs, and zones) of the construct's VPC by default (`DEFAULT_NAT_GATEWAYS`). */
export const DEFAULT_STATIC_EGRESS_NAT_GATEWAYS = 2;

/** The interface endpoints `interfaceEndpoints: true` makes: SQS and Secrets Manager. */
export const INTERFACE_ENDPOINT_SERVICES = 2;

/**
 * A webhook's answer as it comes back through the NAT: a status line and the usual headers, no
 * body (an assumption: receivers answer 200 with little or nothing; the sink's answer is this
 * size).
 */
export const WEBHOOK_ANSWER =
  'HTTP/1.1 200 OK\r\nDate: Wed, 25 Nov 2026 00:00:00 GMT\r\nContent-Type: text/plain\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n';

/**
 * The server's side of a TLS 1.3 handshake (ServerHello, a certificate chain of two certificates,
 * CertificateVerify, Finished: about 4,000 B, assumed), shared, as the client's side is in
 * `WIRE_OVERHEAD_BYTES_PER_REQUEST`, by about 100 requests on a kept-alive connection: 40 B.
 */
export const SERVER_HANDSHAKE_BYTES_PER_REQUEST = 4000 / 100;

/**
 * Bytes a NAT gateway processes for one webhook request of `requestBytes` (request line, headers,
 * body) and its answer: each on the wire with its TCP/TLS framing (`wireBytes`: TLS record
 * framing, TCP/IP headers, the ACK, the client's share of the connection's set-up), and the
 * server's share of the handshake. A NAT gateway bills the bytes it processes both ways.
 */
export function natBytesPerWebhookRequest(requestBytes: number): number {
  return (
    wireBytes(requestBytes) +
    wireBytes(Buffer.byteLength(WEBHOOK_ANSWER)) +
    SERVER_HANDSHAKE_BYTES_PER_REQUEST
  );
}

/** The monthly lines of static egress, USD. */
export interface StaticEgressMonthly {
  natGatewayHours: number;
  publicIpv4Hours: number;
  interfaceEndpointHours: number;
  total: number;
}

/**
 * Static egress by the month: each NAT gateway's hours, each Elastic IP's public IPv4 hours (one
 * per NAT gateway), and with `interfaceEndpoints` each endpoint's hours in each zone (one zone per
 * NAT gateway).
 */
export function staticEgressMonthly(natGateways: number, interfaceEndpoints = false): StaticEgressMonthly {
  const lines = {
    natGatewayHours: natGateways * HOURS_PER_MONTH * PRICES.natGateway.perHour,
    publicIpv4Hours: natGateways * HOURS_PER_MONTH * PRICES.publicIpv4.perAddressHour,
    interfaceEndpointHours: interfaceEndpoints
      ? INTERFACE_ENDPOINT_SERVICES * natGateways * HOURS_PER_MONTH * PRICES.privateLink.perEndpointZoneHour
      : 0,
  };
  return { ...lines, total: lines.natGatewayHours + lines.publicIpv4Hours + lines.interfaceEndpointHours };
}

/** What a run measured of webhook requests, as the bill's usage holds it. */
export interface WebhookTraffic {
  events: number;
  webhookRequests: number;
  /** Their bytes as the endpoint received them: request line, headers and body. */
  webhookBytes: number;
}

/** Static egress per million events: the NAT's data processing of the webhook traffic. */
export function staticEgressPerMillion(traffic: WebhookTraffic): {
  natBytes: number;
  natDataProcessing: number;
} {
  const natBytes =
    traffic.webhookRequests === 0
      ? 0
      : traffic.webhookRequests *
        natBytesPerWebhookRequest(traffic.webhookBytes / traffic.webhookRequests) *
        (1_000_000 / traffic.events);
  return { natBytes, natDataProcessing: (natBytes / GB) * PRICES.natGateway.perGbProcessed };
}

/**
 * One SQS call the delivery function makes (a retry or an ended delivery sent on), as it crosses
 * the NAT: a JSON-protocol `SendMessage` signed with SigV4 and the role's session token (about
 * 1,100 characters for a Lambda execution role, assumed), a 1 KB job in its body, and the answer.
 */
export const SQS_CALL = {
  request: [
    'POST / HTTP/1.1',
    'Host: sqs.us-east-1.amazonaws.com',
    'Content-Type: application/x-amz-json-1.0',
    'X-Amz-Target: AmazonSQS.SendMessage',
    'X-Amz-Date: 20261125T000000Z',
    `X-Amz-Security-Token: ${'T'.repeat(1100)}`,
    `Authorization: AWS4-HMAC-SHA256 Credential=ASIA0123456789ABCDEF/20261125/us-east-1/sqs/aws4_request, SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target;x-amz-user-agent, Signature=${'0'.repeat(64)}`,
    'User-Agent: aws-sdk-js/3.1169.0 ua/2.1 os/linux#6.1 lang/js md/nodejs#24.11.1 api/sqs#3.1169.0 exec-env/AWS_Lambda_nodejs24.x',
    'amz-sdk-invocation-id: 8f5e1d2c-3b4a-4c5d-9e6f-7a8b9c0d1e2f',
    'amz-sdk-request: attempt=1; max=3',
    'Content-Length: 1100',
    '',
    `{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/Gridwire-PipelineRetryQueue-AbCdEfGhIjKl","MessageBody":"${'j'.repeat(1000)}"}`,
  ].join('\r\n'),
  answer: [
    'HTTP/1.1 200 OK',
    'x-amzn-RequestId: 8f5e1d2c-3b4a-4c5d-9e6f-7a8b9c0d1e2f',
    'Content-Type: application/x-amz-json-1.0',
    'Content-Length: 106',
    'Date: Wed, 25 Nov 2026 00:00:00 GMT',
    '',
    '{"MD5OfMessageBody":"0123456789abcdef0123456789abcdef","MessageId":"8f5e1d2c-3b4a-4c5d-9e6f-7a8b9c0d1e2f"}',
  ].join('\r\n'),
};

/** Bytes of one SQS call through the NAT or an interface endpoint, both ways, with their framing. */
export const sqsCallBytes = (): number =>
  wireBytes(Buffer.byteLength(SQS_CALL.request)) + wireBytes(Buffer.byteLength(SQS_CALL.answer));

/**
 * When the interface endpoints (`interfaceEndpoints: true`) pay for themselves: their hours a month
 * against what each GB they carry saves (the NAT's data processing less the endpoint's own), as
 * GB a month of SQS and Secrets Manager traffic from the delivery function, and as SQS calls.
 */
export function interfaceEndpointBreakEven(natGateways = DEFAULT_STATIC_EGRESS_NAT_GATEWAYS) {
  const monthly = staticEgressMonthly(natGateways, true).interfaceEndpointHours;
  const savedPerGb = PRICES.natGateway.perGbProcessed - PRICES.privateLink.perGbProcessed;
  const gbPerMonth = monthly / savedPerGb;
  const callBytes = sqsCallBytes();
  const callsPerMonth = (gbPerMonth * GB) / callBytes;
  return {
    natGateways,
    monthly,
    savedPerGb,
    gbPerMonth,
    sqsCallBytes: callBytes,
    sqsCallsPerMonth: callsPerMonth,
    sqsCallsPerSecond: callsPerMonth / (HOURS_PER_MONTH * 3600),
  };
}
