/**
 * A subscription body's `destination` from the command line's flags, over what `update` read: a
 * webhook (its URL, delivery settings, signing and auth) or an AWS resource (its ARN, type and
 * settings, a role to assume); flags of the other kind are refused.
 */
import { InvalidArgumentError } from 'commander';
import { resourceTypeOfArn } from '../../shared/delivery/rules/resource-destinations';
import type { SubscriptionFlags } from './flags';

type Json = Record<string, unknown>;

/** Whether a destination (document or body) is an AWS resource; one that names no type is a webhook. */
export const isResource = (destination: Json | undefined): boolean =>
  destination !== undefined &&
  destination.endpointType !== undefined &&
  destination.endpointType !== 'WebHook';

/** Whether a subscription document (or body) delivers to an AWS resource rather than a webhook. */
export function deliversToResource(document: Json): boolean {
  const properties = (document.properties ?? {}) as Json;
  const delivery = (properties.deliveryConfiguration ?? {}) as Json;
  const destination = (properties.destination ?? (delivery.push as Json | undefined)?.destination) as
    | Json
    | undefined;
  return isResource(destination);
}

/**
 * An AWS resource destination: the base's (when it is one), with the flags given over it; the
 * webhook-only flags are refused.
 */
function resourceDestinationOf(flags: SubscriptionFlags, base: Json | undefined): Json {
  const kept = isResource(base) ? ((base?.properties ?? {}) as Json) : {};
  const resourceArn = flags.resourceArn ?? (kept.resourceArn as string | undefined);
  const endpointType =
    flags.endpointType ??
    (flags.resourceArn === undefined ? (base?.endpointType as string | undefined) : undefined) ??
    resourceTypeOfArn(resourceArn ?? '');
  if (endpointType === undefined) {
    throw new InvalidArgumentError(
      `--resource-arn ${resourceArn}: give --endpoint-type, the ARN names no known service`,
    );
  }
  const webhookOnly = [
    flags.signingSecret === undefined ? undefined : '--signing-secret',
    flags.oauth2TokenUrl === undefined && flags.oauth2ClientId === undefined ? undefined : '--oauth2-*',
    flags.awsSigv4 === undefined ? undefined : '--aws-sigv4',
    flags.clientCertificate === undefined && flags.clientKey === undefined ? undefined : '--client-*',
    flags.caCertificates === undefined && flags.publicCas !== false ? undefined : '--ca-certificates',
  ].filter((name) => name !== undefined);
  if (webhookOnly.length > 0) {
    throw new InvalidArgumentError(`${webhookOnly.join(', ')}: for webhooks only, not an AWS resource`);
  }
  if (typeof flags.externalId === 'string' && flags.roleArn === false) {
    throw new InvalidArgumentError('--external-id: sent when the role is assumed, not with --no-role-arn');
  }
  return {
    endpointType,
    properties: {
      ...kept,
      resourceArn,
      ...deliverySettingsOf(flags),
      ...(flags.roleArn === undefined
        ? {}
        : { roleArn: flags.roleArn === false ? undefined : flags.roleArn }),
      // No role, no external id: --no-role-arn drops the one the subscription had.
      ...(flags.externalId === undefined
        ? flags.roleArn === false
          ? { externalId: undefined }
          : {}
        : { externalId: flags.externalId === false ? undefined : flags.externalId }),
      ...(flags.invocationType === undefined ? {} : { invocationType: flags.invocationType }),
      ...(flags.partitionKeyField === undefined ? {} : { partitionKeyField: flags.partitionKeyField }),
    },
  };
}

/** The resource-only flags given (refused for a webhook). */
const resourceOnlyFlags = (flags: SubscriptionFlags): string[] =>
  [
    flags.roleArn === undefined ? undefined : '--role-arn',
    flags.externalId === undefined ? undefined : '--external-id',
    flags.invocationType === undefined ? undefined : '--invocation-type',
    flags.partitionKeyField === undefined ? undefined : '--partition-key-field',
  ].filter((name) => name !== undefined);

/** The settings webhooks and resources share (batching, the rate limit, custom attributes), as given. */
const deliverySettingsOf = (flags: SubscriptionFlags): Json => ({
  ...(flags.maxEventsPerBatch === undefined ? {} : { maxEventsPerBatch: flags.maxEventsPerBatch }),
  ...(flags.maxDeliveriesPerSecond === undefined
    ? {}
    : {
        maxDeliveriesPerSecond:
          flags.maxDeliveriesPerSecond === false ? undefined : flags.maxDeliveriesPerSecond,
      }),
  ...(flags.preferredBatchSizeInKilobytes === undefined
    ? {}
    : { preferredBatchSizeInKilobytes: flags.preferredBatchSizeInKilobytes }),
  ...(flags.deliveryAttributeMapping === undefined
    ? {}
    : { deliveryAttributeMappings: flags.deliveryAttributeMapping }),
});

/** The destination: the base's, with the flags given over it (a webhook, or an AWS resource). */
export function destinationOf(flags: SubscriptionFlags, base: Json | undefined): Json {
  const toResource =
    flags.resourceArn !== undefined ||
    (flags.endpointType !== undefined && flags.endpointType !== 'WebHook') ||
    (flags.endpoint === undefined && flags.endpointType === undefined && isResource(base));
  if (toResource) return resourceDestinationOf(flags, base);
  const resourceOnly = resourceOnlyFlags(flags);
  if (resourceOnly.length > 0) {
    throw new InvalidArgumentError(`${resourceOnly.join(', ')}: for AWS resources only, not a webhook`);
  }
  const properties = (isResource(base) ? {} : (base?.properties ?? {})) as Json;
  return {
    endpointType: 'WebHook',
    properties: {
      ...properties,
      ...(flags.endpoint === undefined ? {} : { endpointUrl: flags.endpoint }),
      ...deliverySettingsOf(flags),
      ...signingOf(flags, properties.signing),
      ...authOf(flags, properties.auth),
      ...tlsOf(flags, properties.tls),
    },
  };
}

/**
 * Whether `update` sends back the OAuth 2.0 token URL the subscription has (no `--oauth2-token-url`,
 * `--aws-sigv4` or `--no-auth`): the document shows it cut, so it is read whole first.
 */
export function keepsTokenUrl(document: Json, flags: SubscriptionFlags): boolean {
  const properties = (document.properties ?? {}) as Json;
  const delivery = (properties.deliveryConfiguration ?? {}) as Json;
  const destination = (properties.destination ?? (delivery.push as Json | undefined)?.destination) as
    | Json
    | undefined;
  const auth = (destination?.properties as Json | undefined)?.auth as Json | null | undefined;
  return (
    auth?.type === 'OAuth2ClientCredentials' &&
    flags.oauth2TokenUrl === undefined &&
    flags.awsSigv4 === undefined &&
    flags.auth !== false
  );
}

/**
 * `destination.properties.auth` from the flags, over what `update` read: the OAuth 2.0 flags
 * given change those settings of the client it has (its secret, never shown, is kept by the API
 * when not given again); `--aws-sigv4` signs instead; `--no-auth` removes it.
 */
function authOf(flags: SubscriptionFlags, base: unknown): Json {
  if (flags.auth === false) return { auth: undefined };
  const oauth2 = {
    ...(flags.oauth2TokenUrl === undefined ? {} : { tokenUrl: flags.oauth2TokenUrl }),
    ...(flags.oauth2ClientId === undefined ? {} : { clientId: flags.oauth2ClientId }),
    ...(flags.oauth2ClientSecret === undefined ? {} : { clientSecret: flags.oauth2ClientSecret }),
    ...(flags.oauth2Scope === undefined ? {} : { scope: flags.oauth2Scope }),
  };
  if (flags.awsSigv4 !== undefined) {
    if (Object.keys(oauth2).length > 0) {
      throw new InvalidArgumentError(
        '--aws-sigv4 and the --oauth2-* options are two kinds of auth; give one.',
      );
    }
    return {
      auth: {
        type: 'AwsSigV4',
        service: flags.awsSigv4,
        ...(flags.awsSigv4Region === undefined ? {} : { region: flags.awsSigv4Region }),
      },
    };
  }
  if (Object.keys(oauth2).length === 0) return base === undefined ? {} : { auth: base };
  const kept = (base as Json | undefined)?.type === 'OAuth2ClientCredentials' ? (base as Json) : {};
  return { auth: { ...kept, type: 'OAuth2ClientCredentials', ...oauth2 } };
}

/**
 * `destination.properties.tls` from the flags, over what `update` read (its summaries keep the
 * stored certificate, key and CAs): a certificate given needs its key; `--no-public-cas` trusts
 * only the CAs given (or kept); `--no-tls` removes them all.
 */
function tlsOf(flags: SubscriptionFlags, base: unknown): Json {
  if (flags.tls === false) {
    const given = [
      flags.clientCertificate === undefined ? undefined : '--client-certificate',
      flags.clientKey === undefined ? undefined : '--client-key',
      flags.caCertificates === undefined ? undefined : '--ca-certificates',
    ].filter((name) => name !== undefined);
    if (given.length > 0)
      throw new InvalidArgumentError(`--no-tls and ${given.join(', ')}: give one or the other.`);
    return { tls: undefined };
  }
  const changes = {
    ...(flags.clientCertificate === undefined ? {} : { clientCertificate: flags.clientCertificate }),
    ...(flags.clientKey === undefined ? {} : { clientKey: flags.clientKey }),
    ...(flags.caCertificates === undefined ? {} : { caCertificates: flags.caCertificates }),
    ...(flags.publicCas === false ? { trustPublicCas: false } : {}),
  };
  if (Object.keys(changes).length === 0) return base === undefined ? {} : { tls: base };
  // A new certificate without its key would keep the old key: the API refuses the pair, naming it.
  const kept = (base ?? {}) as Json;
  return { tls: { ...kept, ...changes } };
}

/**
 * `destination.properties.signing` from the flags, over what `update` read (`{"generate": true}`:
 * kept); `--signing-scheme` alone generates a key of that scheme (the one it has, if the same).
 */
function signingOf(flags: SubscriptionFlags, base: unknown): Json {
  if (flags.signing === false) return { signing: undefined };
  if (flags.signingSecret === undefined && flags.signingScheme === undefined) {
    return base === undefined ? {} : { signing: base };
  }
  if (flags.signingSecret !== undefined && flags.signingSecret.toLowerCase() !== 'generate') {
    return { signing: { secret: flags.signingSecret } };
  }
  return {
    signing: {
      generate: true,
      ...(flags.signingScheme === undefined ? {} : { scheme: flags.signingScheme }),
    },
  };
}
