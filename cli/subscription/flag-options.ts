/**
 * The flags that shape a subscription, as commander options (`subscription create` and `update`
 * take the same ones), in the order `--help` lists them: where events go, which events, how they
 * are delivered, signed and authenticated, and what the message log keeps. What they read as is
 * in `flags.ts`.
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { RESOURCE_ENDPOINT_TYPES } from '../../shared/domain/model';
import { LABEL_LIMITS } from '../../shared/sessions/scope';
import { labelsArgument } from '../labels';
import { countOption, flag } from '../options';
import {
  advancedFilterArgument,
  deliveryAttributeArgument,
  deliveryLogArgument,
  deliverySchemaArgument,
  orderedByArgument,
} from './body';
import { deadLetterBucketArgument } from './dead-letter-flags';

/** Where events go: a webhook, or an AWS resource (and the role and settings it is sent with). */
function withDestinationFlags(command: Command): Command {
  return command
    .option('--endpoint <url>', 'the webhook URL events are delivered to (create: this or --resource-arn)')
    .option(
      '--resource-arn <arn>',
      'deliver to this AWS resource instead of a webhook: an SQS queue, SNS topic, EventBridge bus, Lambda function or Kinesis stream ARN (the stack must allow it)',
    )
    .addOption(
      new Option(
        '--endpoint-type <type>',
        'WebHook, or the resource type (default: read from --resource-arn)',
      ).choices(['WebHook', ...RESOURCE_ENDPOINT_TYPES]),
    )
    .option(
      '--role-arn <arn>',
      'an AWS resource in another account: the IAM role the delivery function assumes to send to it (the stack must allow it)',
    )
    .option('--no-role-arn', "send with the delivery function's own role again")
    .option(
      '--external-id <id>',
      "with --role-arn: the external id the role's trust policy asks for, sent when the role is assumed (not a secret: shown with the subscription)",
    )
    .option('--no-external-id', 'assume the role without an external id again')
    .addOption(
      new Option(
        '--invocation-type <type>',
        'a Lambda function: asynchronous (Event, the default) or RequestResponse',
      ).choices(['Event', 'RequestResponse']),
    )
    .option(
      '--partition-key-field <path>',
      "a Kinesis stream: the event's field whose value keys each record (default: its subject)",
    );
}

/** Which events are delivered: event types, subject filters, advanced filters. */
function withFilterFlags(command: Command): Command {
  return command
    .option(
      '--included-event-types <types...>',
      'deliver only these event types (space-separated; default all)',
    )
    .option('--subject-begins-with <prefix>', 'deliver only events whose subject begins with this')
    .option('--subject-ends-with <suffix>', 'deliver only events whose subject ends with this')
    .addOption(
      new Option(
        '--is-subject-case-sensitive [bool]',
        'match the subject filters case-sensitively',
      ).argParser(flag),
    )
    .option(
      '--advanced-filter <key operator [values...]>',
      'KEY OPERATOR [VALUE ...], e.g. data.total NumberGreaterThan 100 (repeatable; all must hold)',
      advancedFilterArgument,
    )
    .addOption(
      new Option(
        '--enable-advanced-filtering-on-arrays [bool]',
        'let advanced filters look into array values',
      ).argParser(flag),
    );
}

/** How events are delivered: retries, dead letters, batches, rate, order, headers, schema, labels, expiry. */
function withDeliveryFlags(command: Command): Command {
  return command
    .addOption(
      countOption('--max-delivery-attempts <n>', 'attempts before the event is dead-lettered or dropped'),
    )
    .addOption(countOption('--event-ttl <minutes>', "the event's time to live, in minutes"))
    .option(
      '--deadletter-container <name>',
      "dead-letter undeliverable events to this container (a key prefix) of the dead-letter bucket: the stack's own, or --deadletter-bucket",
    )
    .addOption(
      new Option(
        '--deadletter-bucket <name-or-arn>',
        "write dead letters to this S3 bucket (a name, or arn:aws:s3:::<name>) instead of the stack's own (the stack must allow it); with --deadletter-container, or on update a dead-letter destination the subscription has",
      ).argParser(deadLetterBucketArgument),
    )
    .option(
      '--no-deadletter-bucket',
      "write dead letters to the stack's own bucket again (and drop the role)",
    )
    .option(
      '--deadletter-role-arn <arn>',
      'a --deadletter-bucket in another account: the IAM role assumed to write to it (the stack must allow it)',
    )
    .option('--no-deadletter-role-arn', "write to the bucket with the stack's own credentials again")
    .option(
      '--deadletter-external-id <id>',
      "with --deadletter-role-arn: the external id the role's trust policy asks for (not a secret: shown with the subscription)",
    )
    .option('--no-deadletter-external-id', 'assume the dead-letter role without an external id again')
    .addOption(countOption('--max-events-per-batch <n>', 'deliver in batches of at most this many events'))
    .addOption(countOption('--preferred-batch-size-in-kilobytes <kb>', 'preferred largest batch body'))
    .addOption(
      countOption(
        '--max-deliveries-per-second <n>',
        'send the endpoint at most this many requests a second (1 to 10000; a batch is one request), holding the rest',
      ),
    )
    .option('--no-max-deliveries-per-second', 'no rate limit of its own (update: remove it)')
    .option(
      '--ordered-by <key>',
      'deliver events with the same key one at a time, in the order they were accepted: subject, or a dotted path into the event as delivered such as data.orderId',
      orderedByArgument,
    )
    .option('--no-ordered-by', 'no delivery order (update: stop keeping one)')
    .option(
      '--delivery-attribute-mapping <name type value [issecret]...>',
      'a custom header: NAME static VALUE [true for secret], or NAME dynamic EVENT.FIELD (repeatable)',
      deliveryAttributeArgument,
    )
    .option(
      '--event-delivery-schema <schema>',
      'EventGridSchema, CloudEventSchemaV1_0 or CustomInputSchema (any case)',
      deliverySchemaArgument,
    )
    .option(
      '--labels <labels...>',
      `labels, e.g. tenant=acme team=web or tenant=acme,team=web (at most ${LABEL_LIMITS.count}, each at most ${LABEL_LIMITS.length} characters; a portal link's --label picks subscriptions by them)`,
      labelsArgument('--labels'),
    )
    .option('--no-labels', 'no labels (update: remove them)')
    .option('--expiration-date <time>', 'ISO 8601 date or time after which the subscription is deleted')
    .option(
      '--retry-schedule <durations...>',
      "the subscription's own retry schedule: ISO 8601 durations such as PT10S PT1M PT10M PT1H, the last repeating",
    )
    .option(
      '--disable-after-failing-for <duration>',
      "disable the subscription (with a Gridwire.SubscriptionDisabled notice) once its endpoint has failed every attempt this long: an ISO 8601 duration from PT1H to P30D, or 'never' (default P5D)",
    );
}

/** How deliveries are signed, and the credentials they carry (OAuth 2.0 or SigV4). */
function withAuthFlags(command: Command): Command {
  return command
    .option(
      '--signing-secret <secret>',
      "sign every delivery (Standard Webhooks): a secret whsec_<base64> or an Ed25519 key whsk_<base64>, or 'generate' for a new one of --signing-scheme (read it with 'gridwire subscription signing-secret')",
    )
    .addOption(
      new Option(
        '--signing-scheme <scheme>',
        'with --signing-secret generate: v1 (HMAC-SHA256, the default) or v1a (Ed25519)',
      ).choices(['v1', 'v1a']),
    )
    .option('--no-signing', 'deliver unsigned (update: stop signing)')
    .option(
      '--oauth2-token-url <url>',
      'OAuth 2.0 client credentials: the token endpoint (with the other --oauth2-* options)',
    )
    .option('--oauth2-client-id <id>', 'OAuth 2.0 client credentials: the client id')
    .option(
      '--oauth2-client-secret <secret>',
      'OAuth 2.0 client credentials: the client secret (sealed, never shown)',
    )
    .option('--oauth2-scope <scope>', 'OAuth 2.0 client credentials: the scope asked for')
    .option(
      '--aws-sigv4 <service>',
      "sign every request with the stack's own AWS credentials (SigV4) for an endpoint behind IAM: execute-api or lambda",
    )
    .option(
      '--aws-sigv4-region <region>',
      'the region to sign for (default: from the endpoint host, else the stack’s)',
    )
    .option('--no-auth', 'send no credentials of its own (update: remove the auth)')
    .option(
      '--client-certificate <file>',
      'mutual TLS: a PEM file with the client certificate (and its chain) presented to the endpoint; with --client-key',
      pemFileArgument('--client-certificate'),
    )
    .option(
      '--client-key <file>',
      "mutual TLS: a PEM file with the client certificate's private key, unencrypted (sealed, never shown)",
      pemFileArgument('--client-key'),
    )
    .option(
      '--ca-certificates <file>',
      "a PEM bundle of CA certificates trusted for this endpoint (a private CA's), beside the public ones",
      pemFileArgument('--ca-certificates'),
    )
    .option('--no-public-cas', 'trust only --ca-certificates for this endpoint, not the public CAs')
    .option('--no-tls', 'no client certificate or CAs of its own (update: remove them)');
}

/** Reads a PEM file named by a flag; a file that can't be read is refused naming the flag. */
function pemFileArgument(name: string) {
  return (path: string): string => {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new InvalidArgumentError(
        `${name} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  };
}

/** The flags that shape a subscription (create and update take the same ones). */
export function withSubscriptionFlags(command: Command): Command {
  return withAuthFlags(withDeliveryFlags(withFilterFlags(withDestinationFlags(command)))).option(
    '--delivery-log <mode>',
    "what the message log keeps: Failures (failed attempts and what follows, the default) or All (every delivery, with its response, for 'events list' and 'events resend')",
    deliveryLogArgument,
  );
}
