/**
 * A subscription's destination as stored: a webhook's URL with its query string sealed, its
 * signing secrets, auth client secret and token URL's query string sealed, each secret header value sealed (their plain
 * text goes no further), and an AWS resource only where the stack's deployer allowed it.
 */
import { ENV } from '../config/resources';
import { checkEndpointUrl } from '../delivery/endpoint-guard';
import { forgesAuthHeader } from '../delivery/rules/headers';
import { accountOfArn, destinationRefusal, PAIR_SEPARATOR } from '../delivery/rules/resource-destinations';
import { sigV4HostProblem } from '../delivery/rules/sigv4-hosts';
import {
  NoSealingKeyError,
  openEndpointUrl,
  type StoredEndpoint,
  sameStoredEndpoint,
  sealEndpointUrl,
  storedTokenUrlOf,
  storedUrlIs,
} from '../delivery/sealed-endpoint';
import { generateSigningSecret, publicKeyOf, schemeOf } from '../delivery/signing';
import {
  type DeliveryAttributeMapping,
  type DeliveryAuth,
  type Destination,
  endpointIdOf,
  isWebhook,
  type Signing,
  type WebhookDestination,
  webhookAuthOf,
} from '../domain/model';
import { badRequest, conflict, serviceUnavailable } from '../http/errors';
import type { SecretSealer } from '../platform/sealing';
import type { ClockDeps, EndpointRuleDeps, ResourceDestinationDeps, SealingDeps } from './deps';
import type { DestinationInput, SigningInput } from './destination-schema';
import { tlsOf } from './stored-tls';

const MAPPINGS_FIELD = 'properties.destination.properties.deliveryAttributeMappings';
const ENDPOINT_URL_FIELD = 'properties.destination.properties.endpointUrl';

/**
 * What storing a destination (and showing its sealed parts) uses: the time a signing secret is
 * made at, the rules on endpoint URLs and AWS resources, and the sealing key.
 */
export type DestinationDeps = ClockDeps & EndpointRuleDeps & ResourceDestinationDeps & SealingDeps;

/**
 * The stack's sealer, or `undefined` when it has no key: for the steps that need one only for
 * some values (a URL with a query string), and refuse only those.
 */
const sealerIfAny = ({ sealing }: SealingDeps): SecretSealer | undefined =>
  sealing.kind === 'sealed' ? sealing.sealer : undefined;

/** Whether two destinations are the same endpoint: the same webhook URL (sealed query included), or the same resource. */
export const sameDestination = (a: Destination, b: Destination): boolean =>
  isWebhook(a) && isWebhook(b)
    ? sameStoredEndpoint(a, b)
    : endpointIdOf(a) === endpointIdOf(b) && a.endpointType === b.endpointType;

/**
 * The destination as stored: batch settings only as given, and each secret static value sealed
 * (its plain text goes no further than this). An AWS resource must be one the stack may deliver
 * to (`resourceDestinations`), through a role of its own account unless the list pairs them.
 */
export async function destinationOf(
  input: DestinationInput,
  deps: DestinationDeps,
  /** The subscription's destination as stored before (an unchanged URL keeps its seal). */
  existing: Destination | undefined,
  /** Where the mappings are in the request body, for the error message. */
  mappingsField: string = MAPPINGS_FIELD,
  /** Where the endpoint URL is in the request body, for the error message. */
  endpointUrlField: string = ENDPOINT_URL_FIELD,
): Promise<Destination> {
  const mappings = await sealedMappings(input, deps, mappingsField);
  const common = {
    ...(input.maxEventsPerBatch === undefined ? {} : { maxEventsPerBatch: input.maxEventsPerBatch }),
    ...(input.preferredBatchSizeInKilobytes === undefined
      ? {}
      : { preferredBatchSizeInKilobytes: input.preferredBatchSizeInKilobytes }),
    ...(mappings.length === 0 ? {} : { deliveryAttributeMappings: mappings }),
    ...(input.maxDeliveriesPerSecond === undefined
      ? {}
      : { maxDeliveriesPerSecond: input.maxDeliveriesPerSecond }),
  };
  if (input.resource !== undefined) {
    const { endpointType, resourceArn, ...options } = input.resource;
    const reachable = deps.resourceTypes;
    if (!reachable.includes(endpointType)) {
      throw badRequest(
        `${endpointUrlField.replace(/properties\.endpointUrl$/, 'endpointType')}: this stack cannot reach ${endpointType} destinations (the local stack emulates SQS and SNS only); it delivers to ${reachable.join(', ')}.`,
      );
    }
    const patterns = deps.resourceDestinations;
    let refusal = destinationRefusal(patterns, resourceArn, options.roleArn);
    if (refusal !== undefined) {
      const declared = await deps.declaredDestinations.get();
      refusal = destinationRefusal([...patterns, ...declared], resourceArn, options.roleArn);
    }
    if (refusal !== undefined)
      throw badRequest(refusalMessage(refusal, endpointUrlField, resourceArn, options.roleArn));
    return { endpointType, resourceArn, ...options, ...common };
  }
  const webhook = existing !== undefined && isWebhook(existing) ? existing : undefined;
  if (deps.blockPrivateEndpoints) {
    // A name that can't be resolved can't be checked, so it is refused too.
    const check = await checkEndpointUrl(input.endpointUrl);
    if (!check.allowed) {
      throw badRequest(
        `${endpointUrlField}: ${check.reason}; private endpoints are not allowed on this stack.`,
      );
    }
  }
  let endpoint: StoredEndpoint;
  try {
    // A key that can't be read fails the request as an unexpected error, logged with its cause.
    endpoint = await sealEndpointUrl(input.endpointUrl, sealerIfAny(deps), webhook);
  } catch (error) {
    if (!(error instanceof NoSealingKeyError)) throw error;
    throw noSealingKey(
      endpointUrlField,
      "the endpoint URL's query string, so an endpoint URL with a query string can't be stored; URLs without one work",
    );
  }
  const signing = await signingOf(input.signing, deps, webhook?.signing, signingField(endpointUrlField));
  const auth = await authOf(input, deps, webhook, siblingField(endpointUrlField, 'auth'), mappingsField);
  const tlsField = siblingField(endpointUrlField, 'tls');
  const tls = await tlsOf(input, deps, webhook?.tls, tlsField, () =>
    sealerFor(deps, `${tlsField}.clientKey`, "client certificates' keys, so mutual TLS is not available"),
  );
  return {
    endpointType: 'WebHook',
    ...endpoint,
    ...(signing === undefined ? {} : { signing }),
    ...(auth === undefined ? {} : { auth }),
    ...(tls === undefined ? {} : { tls }),
    ...common,
  };
}

/**
 * The 400 for a resource destination the allow-list refuses, naming the field: a resource or a
 * role not on it, or a role of another account than the resource's that no entry pairs with it.
 */
function refusalMessage(
  refusal: 'resourceArn' | 'roleArn' | 'roleAccount',
  endpointUrlField: string,
  resourceArn: string,
  roleArn: string | undefined,
): string {
  const where = `${ENV.resourceDestinations}, the resourceDestinations prop, or a destination declared in the CDK app`;
  if (refusal === 'resourceArn') {
    return `${siblingField(endpointUrlField, 'resourceArn')}: ${resourceArn} is not among the AWS resources this stack may deliver to (${where}); its deployer can add it.`;
  }
  if (refusal === 'roleArn') {
    return `${siblingField(endpointUrlField, 'roleArn')}: ${roleArn} is not among the AWS roles this stack may deliver through to ${resourceArn} (${where}); its deployer can add it.`;
  }
  return `${siblingField(endpointUrlField, 'roleArn')}: ${roleArn} is in account ${accountOfArn(roleArn ?? '')} and the resource in ${accountOfArn(resourceArn)}: a role to assume must be in the resource's account, unless the allow-list pairs the two (an entry '<resource>${PAIR_SEPARATOR}<role>' in ${ENV.resourceDestinations}, {resource, role} in the resourceDestinations prop); its deployer can add it.`;
}

/** The custom delivery attributes as stored: each secret static value sealed (503 without a key). */
async function sealedMappings(
  input: DestinationInput,
  deps: DestinationDeps,
  mappingsField: string,
): Promise<DeliveryAttributeMapping[]> {
  const mappings: DeliveryAttributeMapping[] = [];
  for (const [index, mapping] of (input.deliveryAttributeMappings ?? []).entries()) {
    if (mapping.type === 'Dynamic' || !mapping.isSecret) {
      mappings.push(
        mapping.type === 'Dynamic'
          ? { name: mapping.name, type: 'Dynamic', sourceField: mapping.sourceField }
          : { name: mapping.name, type: 'Static', isSecret: false, value: mapping.value },
      );
      continue;
    }
    const sealer = sealerFor(
      deps,
      `${mappingsField}.${index}.properties.isSecret`,
      "secret header values, so secret values can't be stored; non-secret mappings work",
    );
    // A key that can't be read fails the request as an unexpected error, logged with its cause.
    const sealedValue = await sealer.seal(mapping.value);
    mappings.push({ name: mapping.name, type: 'Static', isSecret: true, sealedValue });
  }
  return mappings;
}

/**
 * The 503 for a secret this stack cannot seal: `<field>: this Gridwire stack has no key to seal
 * <what> (neither ... nor ... is set)`.
 */
export const noSealingKey = (field: string, what: string) =>
  serviceUnavailable(
    `${field}: this Gridwire stack has no key to seal ${what} (neither ${ENV.headerKeySecretArn} nor ${ENV.headerKey} is set).`,
  );

/** The stack's sealer, or the {@link noSealingKey} 503 naming `field` and `what`. */
export function sealerFor({ sealing }: SealingDeps, field: string, what: string): SecretSealer {
  if (sealing.kind === 'noKey') throw noSealingKey(field, what);
  return sealing.sealer;
}

/** Where a destination property is in the request body: beside the endpoint URL. */
const siblingField = (endpointUrlField: string, name: string) =>
  endpointUrlField.replace(/endpointUrl$/, name);
const signingField = (endpointUrlField: string) => siblingField(endpointUrlField, 'signing');

/**
 * How requests authenticate to the endpoint, as stored: an OAuth 2.0 client secret sealed (503
 * without a key), or kept from the stored destination when left out (documents never show it),
 * and the token URL's query string sealed as the endpoint URL's is. A kept secret never follows
 * a change: another endpoint URL, token URL or client id needs the secret given again (400
 * naming `auth.clientSecret`), or a PUT that moved the endpoint would hand the new one the old
 * endpoint's bearer tokens on the word of someone who never knew the secret. No custom header may
 * pass for the credentials auth makes (`forgesAuthHeader`: `Authorization`, and `X-Amz-*` with
 * SigV4; 400 naming the mapping).
 */
async function authOf(
  input: DestinationInput,
  deps: DestinationDeps,
  /** The webhook as stored before, when it was one. */
  webhook: WebhookDestination | undefined,
  field: string,
  mappingsField: string,
): Promise<DeliveryAuth | undefined> {
  const { auth } = input;
  if (auth === undefined) return undefined;
  for (const [index, mapping] of (input.deliveryAttributeMappings ?? []).entries()) {
    if (!forgesAuthHeader(auth.type, mapping.name)) continue;
    const why =
      mapping.name.toLowerCase() === 'authorization'
        ? 'a subscription with auth sends its own Authorization header'
        : "a subscription with AwsSigV4 auth signs its requests, and X-Amz-* headers are the signature's own";
    throw badRequest(
      `${mappingsField}.${index}.name: '${mapping.name}' can't be set by a mapping: ${why}; remove the custom header or the auth (${field}).`,
    );
  }
  if (auth.type === 'AwsSigV4') {
    // The delivery role signs: only for the service's own endpoints, never another AWS API.
    const problem = sigV4HostProblem(
      auth.service,
      input.endpointUrl,
      { allowLoopback: deps.allowHttpEndpoints },
      auth.region,
    );
    if (problem !== undefined) throw badRequest(`${field}: ${problem}.`);
    return auth;
  }
  if (deps.blockPrivateEndpoints) {
    const check = await checkEndpointUrl(auth.tokenUrl);
    if (!check.allowed) {
      throw badRequest(
        `${field}.tokenUrl: ${check.reason}; private endpoints are not allowed on this stack.`,
      );
    }
  }
  const existing = webhook?.auth?.type === 'OAuth2ClientCredentials' ? webhook.auth : undefined;
  let token: StoredEndpoint;
  try {
    token = await sealEndpointUrl(
      auth.tokenUrl,
      sealerIfAny(deps),
      existing === undefined ? undefined : storedTokenUrlOf(existing),
    );
  } catch (error) {
    if (!(error instanceof NoSealingKeyError)) throw error;
    throw noSealingKey(
      `${field}.tokenUrl`,
      "the token URL's query string, so a token URL with a query string can't be stored; URLs without one work",
    );
  }
  const { clientSecret, tokenUrl: _tokenUrl, ...client } = auth;
  const stored = {
    ...client,
    tokenUrl: token.endpointUrl,
    ...(token.sealedQuery === undefined ? {} : { sealedTokenQuery: token.sealedQuery }),
  };
  if (clientSecret === undefined) {
    const changed = await changeForClientSecret(input, deps, webhook, existing);
    if (changed !== undefined || existing === undefined) {
      throw badRequest(
        `${field}.clientSecret: is required${changed === undefined || changed === 'new' ? '' : ` because the ${changed} changed`}: a client secret is kept (left out or null) only while the endpoint URL, the token URL and the client id stay the same, so tokens never reach another endpoint without the secret being given again.`,
      );
    }
    return { ...stored, sealedClientSecret: existing.sealedClientSecret };
  }
  const sealer = sealerFor(
    deps,
    `${field}.clientSecret`,
    'client secrets, so OAuth 2.0 auth is not available',
  );
  return { ...stored, sealedClientSecret: await sealer.seal(clientSecret) };
}

/**
 * Why a PUT without a client secret can't keep the stored one: there is none (`new`), or what
 * changed (the endpoint URL, the token URL or the client id); `undefined` when it may be kept.
 * URLs are compared whole, their sealed query strings opened.
 */
async function changeForClientSecret(
  input: DestinationInput,
  deps: DestinationDeps,
  webhook: WebhookDestination | undefined,
  existing: Extract<DeliveryAuth, { type: 'OAuth2ClientCredentials' }> | undefined,
): Promise<'new' | 'endpoint URL' | 'token URL' | 'client id' | undefined> {
  const auth = input.auth;
  if (webhook === undefined || existing === undefined || auth?.type !== 'OAuth2ClientCredentials') {
    return 'new';
  }
  if (!(await storedUrlIs(webhook, input.endpointUrl, sealerIfAny(deps)))) return 'endpoint URL';
  if (!(await storedUrlIs(storedTokenUrlOf(existing), auth.tokenUrl, sealerIfAny(deps)))) return 'token URL';
  if (existing.clientId !== auth.clientId) return 'client id';
  return undefined;
}

/**
 * The signing secrets to store: `{"generate": true}` keeps the secrets the subscription has (so
 * saving it again changes nothing) or makes one; `{"secret"}` makes that one current, keeping
 * nothing else unless it is the current one already; none: unsigned. Sealed like secret header
 * values (503 without a key).
 */
async function signingOf(
  input: SigningInput | undefined,
  deps: DestinationDeps,
  existing: Signing | undefined,
  field: string,
): Promise<Signing | undefined> {
  if (input === undefined) return undefined;
  const current = existing?.secrets[0];
  const currentScheme = current?.publicKey === undefined ? 'v1' : 'v1a';
  if ('generate' in input && existing !== undefined && (input.scheme ?? currentScheme) === currentScheme) {
    return existing;
  }
  const sealer = sealerFor(deps, field, "signing secrets, so deliveries can't be signed");
  if ('secret' in input && current !== undefined && (await sealer.open(current.sealed)) === input.secret) {
    return existing;
  }
  const secret = 'secret' in input ? input.secret : generateSigningSecret(input.scheme);
  return { secrets: [await signingSecretEntry(sealer, secret, deps.clock.now())] };
}

/** A signing secret as stored: sealed, with its public key when it is a v1a key. */
export async function signingSecretEntry(
  sealer: SecretSealer,
  secret: string,
  createdAt: number,
): Promise<Signing['secrets'][number]> {
  return {
    sealed: await sealer.seal(secret),
    ...(schemeOf(secret) === 'v1a' ? { publicKey: publicKeyOf(secret) } : {}),
    createdAt,
  };
}

/**
 * What `getFullUrl` answers: the whole endpoint URL, and an OAuth 2.0 client's whole token URL
 * (documents show both up to their paths), their sealed query strings opened. 503 without a key.
 */
export async function fullUrlsDocument(
  deps: SealingDeps,
  destination: Destination,
): Promise<{ endpointUrl: string; tokenUrl?: string }> {
  const endpointUrl = await fullEndpointUrl(deps, destination);
  const auth = webhookAuthOf(destination);
  if (auth?.type !== 'OAuth2ClientCredentials') return { endpointUrl };
  try {
    return { endpointUrl, tokenUrl: await openEndpointUrl(storedTokenUrlOf(auth), sealerIfAny(deps)) };
  } catch (error) {
    if (!(error instanceof NoSealingKeyError)) throw error;
    throw serviceUnavailable(
      `tokenUrl: the token URL's query string is sealed and this Gridwire stack has no key to open it (neither ${ENV.headerKeySecretArn} nor ${ENV.headerKey} is set).`,
    );
  }
}

/** The whole endpoint URL (its sealed query string opened): `getFullUrl`. 503 without a key. */
export async function fullEndpointUrl(deps: SealingDeps, destination: Destination): Promise<string> {
  if (!isWebhook(destination)) {
    throw conflict(
      `The event subscription delivers to ${destination.resourceArn}, not a webhook: it has no endpoint URL.`,
    );
  }
  try {
    return await openEndpointUrl(destination, sealerIfAny(deps));
  } catch (error) {
    if (!(error instanceof NoSealingKeyError)) throw error;
    throw serviceUnavailable(
      `endpointUrl: the endpoint URL's query string is sealed and this Gridwire stack has no key to open it (neither ${ENV.headerKeySecretArn} nor ${ENV.headerKey} is set).`,
    );
  }
}
