/**
 * A subscription's `destination` as the API takes it (both kinds of subscription): a webhook, its
 * URL, signing, auth and delivery settings, or an AWS resource, its ARN checked against its type
 * and its attributes against what the service's messages carry; each turned into the input the
 * management operations store.
 */

import { z } from 'zod';
import { BATCH_LIMITS } from '../delivery/rules/batching';
import { RATE_LIMITS } from '../delivery/rules/rate-limit';
import {
  arnSegmentsProblem,
  deliveryAttributeProblem,
  MAX_MESSAGE_ATTRIBUTES,
  messageFieldOf,
  parseResourceArn,
} from '../delivery/rules/resource-destinations';
import { SIGNING_SCHEMES, type SigningScheme, signingSecretProblem } from '../delivery/signing';
import { RESOURCE_ENDPOINT_TYPES, type ResourceDestination, SIGV4_SERVICES } from '../domain/model';
import { describeControlCharacter, firstControlCharacter } from '../platform/control-characters';
import { deliveryAttributeMappingsSchema, eventFieldPathSchema } from './delivery-attributes-schema';
import { intInRange } from './request-body';
import { type TlsInput, tlsInputOf, tlsInputSchema } from './tls-schema';

/** `URL.href` of a URL already checked; the text itself if it does not parse (never stored then). */
const normalizedUrl = (value: string): string => {
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
};

/** A URL Gridwire sends to: absolute, https (http too in local mode), no user credentials, no control characters. */
export function outgoingUrlSchema(allowHttp: boolean) {
  return z.string({ error: 'is required and must be a string' }).superRefine((value, ctx) => {
    // Checked as typed: the URL parser would quietly drop tabs and line breaks.
    const control = firstControlCharacter(value);
    if (control !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must not contain control characters (CR, LF, tab or any other below U+0020, or DEL); found ${describeControlCharacter(control.code)} at position ${control.index}`,
      });
      return;
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
      return;
    }
    const allowed = allowHttp ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol)) {
      ctx.addIssue({
        code: 'custom',
        message: allowHttp
          ? 'must be an http or https URL'
          : 'must be an https URL (http is allowed in local mode only)',
      });
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not carry user credentials' });
    }
  });
}

/**
 * The delivery settings every destination takes (a webhook's and a resource's properties):
 * output batching, custom delivery attributes, and a rate limit (`null`: none).
 */
const deliverySettingsShape = {
  maxEventsPerBatch: intInRange(BATCH_LIMITS.maxEventsPerBatch).optional(),
  preferredBatchSizeInKilobytes: intInRange(BATCH_LIMITS.preferredBatchSizeInKilobytes).optional(),
  deliveryAttributeMappings: deliveryAttributeMappingsSchema.optional(),
  maxDeliveriesPerSecond: intInRange(RATE_LIMITS).nullable().optional(),
};

/** A webhook destination (`{"endpointType": "WebHook", "properties": {...}}`) as both kinds of subscription take it. */
export function webhookDestinationSchema(allowHttp: boolean) {
  const endpointUrl = outgoingUrlSchema(allowHttp);
  // Stored as parsed (`URL.href`): the one spelling delivery, health and validation compare.
  const parsedEndpointUrl = endpointUrl.transform((value) => normalizedUrl(value));
  return z.strictObject(
    {
      endpointType: z.literal('WebHook', { error: "must be 'WebHook'" }),
      properties: z.strictObject(
        {
          endpointUrl: parsedEndpointUrl,
          ...deliverySettingsShape,
          signing: signingInputSchema,
          auth: deliveryAuthInputSchema(allowHttp),
          tls: tlsInputSchema,
        },
        { error: 'is required' },
      ),
    },
    { error: 'is required' },
  );
}

/**
 * `destination.properties.signing`: `{"secret": "whsec_..."}` (that secret), `{"generate": true}`
 * (a new one, or the one the subscription has), or absent or `null` (unsigned).
 */
export const signingInputSchema = z
  .union(
    [
      z.strictObject({
        secret: z.string().superRefine((secret, ctx) => {
          const problem = signingSecretProblem(secret);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
        }),
      }),
      z.strictObject({
        generate: z.literal(true),
        scheme: z
          .enum(SIGNING_SCHEMES, { error: "must be 'v1' (HMAC-SHA256) or 'v1a' (Ed25519)" })
          .optional(),
      }),
    ],
    {
      error:
        'must be {"secret": "whsec_<base64>" or "whsk_<base64>"} or {"generate": true, "scheme": "v1" | "v1a"}',
    },
  )
  .nullable()
  .optional();

/** A region name such as `eu-west-1`. */
const AWS_REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/**
 * `destination.properties.auth`: `{"type": "OAuth2ClientCredentials", "tokenUrl", "clientId",
 * "clientSecret", "scope"}` or `{"type": "AwsSigV4", "service": "execute-api" | "lambda",
 * "region"}`; absent or `null`: none. `clientSecret` may be left out when the subscription has
 * the same client already (documents never show it, so a document sent back keeps it).
 */
export function deliveryAuthInputSchema(allowHttp: boolean) {
  return z
    .discriminatedUnion(
      'type',
      [
        z.strictObject({
          type: z.literal('OAuth2ClientCredentials'),
          tokenUrl: outgoingUrlSchema(allowHttp).transform((value) => normalizedUrl(value)),
          clientId: z
            .string({ error: 'is required and must be a string' })
            .min(1, { error: 'must not be empty' })
            .max(256, { error: 'is at most 256 characters' }),
          clientSecret: z
            .string({ error: 'must be a string' })
            .min(1, { error: 'must not be empty' })
            .max(1024, { error: 'is at most 1024 characters' })
            .nullable()
            .optional(),
          scope: z
            .string({ error: 'must be a string' })
            .max(1024, { error: 'is at most 1024 characters' })
            .optional(),
        }),
        z.strictObject({
          type: z.literal('AwsSigV4'),
          service: z.enum(SIGV4_SERVICES, { error: `must be one of ${SIGV4_SERVICES.join(', ')}` }),
          region: z
            .string({ error: 'must be a string' })
            .regex(AWS_REGION_PATTERN, { error: 'must be an AWS region such as eu-west-1' })
            .optional(),
        }),
      ],
      { error: "must be an object whose type is 'OAuth2ClientCredentials' or 'AwsSigV4'" },
    )
    .nullable()
    .optional();
}

/** How a subscription's requests authenticate to the endpoint, as asked (the client secret in plain text). */
export type AuthInput =
  | {
      type: 'OAuth2ClientCredentials';
      tokenUrl: string;
      clientId: string;
      clientSecret?: string;
      scope?: string;
    }
  | { type: 'AwsSigV4'; service: (typeof SIGV4_SERVICES)[number]; region?: string };

/** How a subscription's requests are to be signed, as asked. */
export type SigningInput = { secret: string } | { generate: true; scheme?: SigningScheme | undefined };

/**
 * A delivery attribute mapping as the API takes it: a secret static value still in plain text
 * (sealed before it is stored; see `shared/management/api.ts`).
 */
export type DeliveryAttributeInput =
  | { name: string; type: 'Static'; isSecret: boolean; value: string }
  | { name: string; type: 'Dynamic'; sourceField: string };

/** What a subscription's destination gives its input: a webhook's settings, or an AWS resource. */
export interface DestinationInput {
  /** The webhook's URL; empty for an AWS resource. */
  endpointUrl: string;
  /** Output batching, only the settings given. */
  maxEventsPerBatch?: number;
  preferredBatchSizeInKilobytes?: number;
  /** Custom delivery headers (or a resource's attributes), in the order given; absent when none. */
  deliveryAttributeMappings?: DeliveryAttributeInput[];
  /** Standard Webhooks signing, as asked; absent: unsigned. */
  signing?: SigningInput;
  /** Requests per second the endpoint takes at most; absent: no limit of its own. */
  maxDeliveriesPerSecond?: number;
  /** How requests authenticate to the endpoint; absent: none. */
  auth?: AuthInput;
  /** A client certificate and CAs of the endpoint's own; absent: none. */
  tls?: TlsInput;
  /** An AWS resource to deliver to instead of a webhook (`endpointUrl` is then empty). */
  resource?: Pick<
    ResourceDestination,
    'endpointType' | 'resourceArn' | 'invocationType' | 'partitionKeyField' | 'roleArn' | 'externalId'
  >;
}

/**
 * `destination` as both kinds of subscription take it: a webhook, or an AWS resource
 * (`{"endpointType": "AwsSqsQueue", "properties": {"resourceArn": ...}}`, its ARN checked
 * against its type).
 */
export function destinationSchema(allowHttp: boolean) {
  return z.discriminatedUnion(
    'endpointType',
    [webhookDestinationSchema(allowHttp), resourceDestinationInputSchema],
    {
      error: (issue) =>
        issue.input === undefined
          ? 'is required'
          : `must be 'WebHook' or one of ${RESOURCE_ENDPOINT_TYPES.join(', ')}`,
    },
  );
}

/** An IAM role's ARN (its path and name as IAM allows them). */
const ROLE_ARN = /^arn:(aws|aws-cn|aws-us-gov):iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

/**
 * An external id as STS's `AssumeRole` takes it: 2 to 1224 characters, letters, digits and
 * `_+=,.@:/-`, no spaces. Not a secret (the role's owner chose it to tell the stack's requests
 * from another's, the confused-deputy check), so it is stored and shown as given.
 */
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

/** A role to assume, as the API takes it. */
export const roleArnSchema = z.string({ error: 'must be a string' }).regex(ROLE_ARN, {
  error: 'must be the ARN of an IAM role, such as arn:aws:iam::123456789012:role/gridwire-delivery',
});

/** An external id sent when a role is assumed, as the API takes it. */
export const externalIdSchema = z.string({ error: 'must be a string' }).regex(EXTERNAL_ID, {
  error: "must be 2 to 1224 characters, letters, digits and _+=,.@:/- (STS's rules for an external id)",
});

/** An AWS resource destination as the API takes it. */
export const resourceDestinationInputSchema = z
  .strictObject(
    {
      endpointType: z.enum(RESOURCE_ENDPOINT_TYPES),
      properties: z.strictObject(
        {
          resourceArn: z.string({ error: 'is required and must be a string' }),
          ...deliverySettingsShape,
          invocationType: z
            .enum(['Event', 'RequestResponse'], { error: "must be 'Event' or 'RequestResponse'" })
            .optional(),
          partitionKeyField: eventFieldPathSchema.optional(),
          roleArn: roleArnSchema.optional(),
          externalId: externalIdSchema.optional(),
        },
        { error: 'is required' },
      ),
    },
    { error: 'is required' },
  )
  .superRefine((destination, ctx) => {
    const { endpointType, properties } = destination;
    if (properties.externalId !== undefined && properties.roleArn === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'externalId'],
        message: 'is sent when the role in roleArn is assumed: give roleArn too, or leave externalId out',
      });
    }
    for (const field of ['resourceArn', 'roleArn'] as const) {
      const arn = properties[field];
      const problem = typeof arn === 'string' ? arnSegmentsProblem(arn) : undefined;
      if (problem !== undefined)
        ctx.addIssue({ code: 'custom', path: ['properties', field], message: problem });
    }
    if (properties.invocationType !== undefined && endpointType !== 'AwsLambdaFunction') {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'invocationType'],
        message: 'is for AwsLambdaFunction destinations only',
      });
    }
    if (properties.partitionKeyField !== undefined && endpointType !== 'AwsKinesisStream') {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'partitionKeyField'],
        message: 'is for AwsKinesisStream destinations only',
      });
    }
    const ref = parseResourceArn(destination.endpointType, destination.properties.resourceArn);
    if ('problem' in ref)
      ctx.addIssue({ code: 'custom', path: ['properties', 'resourceArn'], message: ref.problem });
    const mappings = destination.properties.deliveryAttributeMappings ?? [];
    const fifo = !('problem' in ref) && ref.fifo;
    mappings.forEach((mapping, index) => {
      const problem = deliveryAttributeProblem(endpointType, fifo, mapping.name);
      if (problem !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['properties', 'deliveryAttributeMappings', index, 'name'],
          message: `'${mapping.name}': ${problem}`,
        });
    });
    const attributes = mappings.filter(
      (mapping) => messageFieldOf(endpointType, mapping.name) === undefined,
    ).length;
    if (attributes > MAX_MESSAGE_ATTRIBUTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'deliveryAttributeMappings'],
        message: `a message carries at most ${MAX_MESSAGE_ATTRIBUTES} attributes (got ${attributes})`,
      });
    }
    if (
      properties.partitionKeyField !== undefined &&
      mappings.some((mapping) => messageFieldOf(endpointType, mapping.name) === 'PartitionKey')
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'partitionKeyField'],
        message: 'and a PartitionKey delivery attribute both set the partition key; give one of the two',
      });
    }
  });

/** A parsed destination (webhook or resource) as input: settings only as given, mappings in order. */
export function destinationInputOf(parsed: z.infer<ReturnType<typeof destinationSchema>>): DestinationInput {
  if (parsed.endpointType === 'WebHook') {
    const { endpointUrl, signing, auth, tls } = parsed.properties;
    return {
      endpointUrl,
      ...deliverySettingsInputOf(parsed.properties),
      ...(signing === undefined || signing === null ? {} : { signing }),
      ...(auth === undefined || auth === null ? {} : { auth: authInputOf(auth) }),
      ...(tls === undefined || tls === null ? {} : { tls: tlsInputOf(tls) }),
    };
  }
  const { resourceArn, invocationType, partitionKeyField, roleArn, externalId } = parsed.properties;
  return {
    endpointUrl: '',
    resource: {
      endpointType: parsed.endpointType,
      resourceArn,
      ...(invocationType === undefined ? {} : { invocationType }),
      ...(partitionKeyField === undefined ? {} : { partitionKeyField }),
      ...(roleArn === undefined ? {} : { roleArn }),
      ...(externalId === undefined ? {} : { externalId }),
    },
    ...deliverySettingsInputOf(parsed.properties),
  };
}

/** The delivery settings of a parsed destination as input: those given; no rate limit and no mappings alike absent. */
function deliverySettingsInputOf(
  properties: z.infer<z.ZodObject<typeof deliverySettingsShape>>,
): Pick<
  DestinationInput,
  | 'maxEventsPerBatch'
  | 'preferredBatchSizeInKilobytes'
  | 'maxDeliveriesPerSecond'
  | 'deliveryAttributeMappings'
> {
  const { maxEventsPerBatch, preferredBatchSizeInKilobytes, maxDeliveriesPerSecond } = properties;
  const mappings = properties.deliveryAttributeMappings ?? [];
  return {
    ...(maxEventsPerBatch === undefined ? {} : { maxEventsPerBatch }),
    ...(preferredBatchSizeInKilobytes === undefined ? {} : { preferredBatchSizeInKilobytes }),
    ...(maxDeliveriesPerSecond === undefined || maxDeliveriesPerSecond === null
      ? {}
      : { maxDeliveriesPerSecond }),
    ...(mappings.length === 0 ? {} : { deliveryAttributeMappings: mappingsInputOf(mappings) }),
  };
}

/** Parsed delivery attribute mappings as input, in order. */
function mappingsInputOf(
  mappings: NonNullable<z.infer<typeof deliveryAttributeMappingsSchema>>,
): DeliveryAttributeInput[] {
  return mappings.map(
    (mapping): DeliveryAttributeInput =>
      mapping.type === 'Static'
        ? {
            name: mapping.name,
            type: 'Static',
            isSecret: mapping.properties.isSecret ?? false,
            value: mapping.properties.value,
          }
        : { name: mapping.name, type: 'Dynamic', sourceField: mapping.properties.sourceField },
  );
}

/** A parsed `auth` as input: a `null` client secret is the same as none given. */
function authInputOf(auth: NonNullable<z.infer<ReturnType<typeof deliveryAuthInputSchema>>>): AuthInput {
  if (auth.type === 'AwsSigV4') return auth;
  const { clientSecret, ...rest } = auth;
  return clientSecret === undefined || clientSecret === null ? rest : { ...rest, clientSecret };
}
