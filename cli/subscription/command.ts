/**
 * `gridwire subscription create|update|show|list|delete|validate`: event subscriptions of a
 * topic (with `--namespace`, of a namespace topic), with the Azure CLI's flag names
 * (`az eventgrid event-subscription ...`). A client of the management API's subscription routes,
 * local by default or `--api` (see `admin-api.ts`); the bodies are made in `body.ts`, what is
 * printed in `format.ts`.
 */
import { Command, Option } from 'commander';
import { RESOURCE_ENDPOINT_TYPES } from '../../shared/domain/model';
import type { HealthDocument } from '../../shared/management/resource-documents';
import {
  type ApiTarget,
  type ApiTargetOptions,
  callOk,
  namespaceOption,
  okText,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionAdminPath,
  subscriptionLabel,
  subscriptionsAdminPath,
  withApiTargetOptions,
} from '../admin-api';
import { CliError } from '../errors';
import { countOption, flag, integer } from '../options';
import { type JsonOption, printAnswer } from '../output';
import {
  advancedFilterArgument,
  classicBodyOf,
  classicSubscriptionBody,
  deliveryAttributeArgument,
  deliveryLogArgument,
  deliverySchemaArgument,
  namespaceBodyOf,
  namespaceSubscriptionBody,
} from './body';
import { deliversToResource, keepsTokenUrl } from './destination-flags';
import type { SubscriptionFlags } from './flags';
import { formatSubscription, formatSubscriptionList, type SubscriptionDocument } from './format';

/** A document as the plain JSON it came as. */
const asJson = (document: SubscriptionDocument) => document as unknown as Record<string, unknown>;

type Options = ApiTargetOptions & SubscriptionRef & SubscriptionFlags & JsonOption;

/** `--topic`, `--namespace` and `--name` (the subscription), required where marked. */
function withRef(command: Command, named = true): Command {
  command
    .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
    .addOption(namespaceOption());
  if (named) command.requiredOption('--name <name>', 'the event subscription');
  return withApiTargetOptions(command).option('--json', 'print the API’s JSON document instead of text');
}

/** The flags that shape a subscription (create and update take the same ones). */
function withSubscriptionFlags(command: Command): Command {
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
    )
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
    )
    .addOption(
      countOption('--max-delivery-attempts <n>', 'attempts before the event is dead-lettered or dropped'),
    )
    .addOption(countOption('--event-ttl <minutes>', "the event's time to live, in minutes"))
    .option(
      '--deadletter-container <name>',
      'dead-letter undeliverable events to this container of the dead-letter bucket',
    )
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
      '--delivery-attribute-mapping <name type value [issecret]...>',
      'a custom header: NAME static VALUE [true for secret], or NAME dynamic EVENT.FIELD (repeatable)',
      deliveryAttributeArgument,
    )
    .option(
      '--event-delivery-schema <schema>',
      'EventGridSchema, CloudEventSchemaV1_0 or CustomInputSchema (any case)',
      deliverySchemaArgument,
    )
    .option('--labels <labels...>', 'labels (space-separated)')
    .option('--expiration-date <time>', 'ISO 8601 date or time after which the subscription is deleted')
    .option(
      '--retry-schedule <durations...>',
      "the subscription's own retry schedule: ISO 8601 durations such as PT10S PT1M PT10M PT1H, the last repeating",
    )
    .option(
      '--disable-after-failing-for <duration>',
      "disable the subscription (with a Gridwire.SubscriptionDisabled notice) once its endpoint has failed every attempt this long: an ISO 8601 duration from PT1H to P30D, or 'never' (default P5D)",
    )
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
      '--delivery-log <mode>',
      "what the message log keeps: Failures (failed attempts and what follows, the default) or All (every delivery, with its response, for 'events list' and 'events resend')",
      deliveryLogArgument,
    );
}

/** The subscription's document, or `undefined` when there is none. */
async function readSubscription(
  target: ApiTarget,
  ref: SubscriptionRef,
): Promise<SubscriptionDocument | undefined> {
  const answer = await target.call('GET', subscriptionAdminPath(ref));
  if (answer.status === 404) return undefined;
  return JSON.parse(
    await callOk(target, 'GET', subscriptionAdminPath(ref), undefined, `reading ${subscriptionLabel(ref)}`),
  ) as SubscriptionDocument;
}

const refOf = (options: Options): SubscriptionRef => ({
  topic: options.topic,
  subscription: options.subscription,
  ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
});

/** `--name` is the subscription: commander keeps it as `name`. */
const named = (options: Options & { name?: string }): Options => ({
  ...options,
  subscription: options.name ?? options.subscription,
});

/** PUTs `body` and prints the answer: "Created" (201) or "Updated" (200). */
async function save(
  target: ApiTarget,
  ref: SubscriptionRef,
  body: unknown,
  options: JsonOption,
): Promise<void> {
  const answer = await target.call('PUT', subscriptionAdminPath(ref), JSON.stringify(body));
  const text = okText(answer, `saving ${subscriptionLabel(ref)}`);
  const document = JSON.parse(text) as SubscriptionDocument;
  printAnswer(
    options,
    document,
    (doc) =>
      `${answer.status === 201 ? 'Created' : 'Updated'} ${subscriptionLabel(ref)}.\n${formatSubscription(doc)}`,
  );
}

export function subscriptionCommand(): Command {
  const subscription = new Command('subscription').description(
    'Event subscriptions of a topic: create, update, show, list, delete, pause, resume, validate, signing-secret (az eventgrid event-subscription).',
  );

  subscription.addCommand(
    withSubscriptionFlags(withRef(new Command('create')))
      .description('Create an event subscription (or replace one of the same name).')
      .action(async (raw: Options) => {
        const options = named(raw);
        if (options.endpoint === undefined && options.resourceArn === undefined) {
          throw new CliError('give --endpoint (a webhook) or --resource-arn (an AWS resource)');
        }
        const ref = refOf(options);
        const target = await resolveApiTarget(options);
        const body =
          ref.namespace === undefined ? classicSubscriptionBody(options) : namespaceSubscriptionBody(options);
        await save(target, ref, body, options);
      }),
  );

  subscription.addCommand(
    withSubscriptionFlags(withRef(new Command('update')))
      .description('Change some settings of an event subscription; the others stay as they are.')
      .action(async (raw: Options) => {
        const options = named(raw);
        const ref = refOf(options);
        const target = await resolveApiTarget(options);
        const document = await readSubscription(target, ref);
        if (document === undefined) throw new CliError(`no ${subscriptionLabel(ref)}`);
        // The document shows the endpoint (and an OAuth 2.0 token URL) without its query string;
        // the API gives them whole (an AWS resource, or a webhook given anew without a token URL
        // kept, needs no asking).
        const resource = deliversToResource(asJson(document)) || options.resourceArn !== undefined;
        const full =
          resource || (options.endpoint !== undefined && !keepsTokenUrl(asJson(document), options))
            ? undefined
            : (JSON.parse(
                await callOk(
                  target,
                  'POST',
                  `${subscriptionAdminPath(ref)}/getFullUrl`,
                  undefined,
                  `reading the endpoint URL of ${subscriptionLabel(ref)}`,
                ),
              ) as { endpointUrl: string; tokenUrl?: string });
        const endpointUrl = options.endpoint ?? (resource ? '' : (full?.endpointUrl ?? ''));
        const gaps = { endpointUrl, ...(full?.tokenUrl === undefined ? {} : { tokenUrl: full.tokenUrl }) };
        let body: Record<string, unknown>;
        try {
          body =
            ref.namespace === undefined
              ? classicSubscriptionBody(options, classicBodyOf(asJson(document), gaps, options))
              : namespaceSubscriptionBody(options, namespaceBodyOf(asJson(document), gaps, options));
        } catch (error) {
          throw new CliError((error as Error).message);
        }
        await save(target, ref, body, options);
      }),
  );

  subscription.addCommand(
    withRef(new Command('show'))
      .description('Show an event subscription.')
      .action(async (raw: Options) => {
        const options = named(raw);
        const ref = refOf(options);
        const document = await readSubscription(await resolveApiTarget(options), ref);
        if (document === undefined) throw new CliError(`no ${subscriptionLabel(ref)}`);
        printAnswer(options, document, formatSubscription);
      }),
  );

  subscription.addCommand(
    withRef(new Command('list'), false)
      .description("List a topic's event subscriptions.")
      .action(async (options: Options) => {
        const target = await resolveApiTarget(options);
        const text = await callOk(
          target,
          'GET',
          subscriptionsAdminPath(options),
          undefined,
          `listing the subscriptions of topic ${options.topic}`,
        );
        const { value } = JSON.parse(text) as { value: SubscriptionDocument[] };
        printAnswer(options, value, (documents) => formatSubscriptionList(options, documents));
      }),
  );

  subscription.addCommand(
    withRef(new Command('delete'))
      .description('Delete an event subscription (its queued and held events are dropped).')
      .action(async (raw: Options) => {
        const options = named(raw);
        const ref = refOf(options);
        const target = await resolveApiTarget(options);
        const answer = await target.call('DELETE', subscriptionAdminPath(ref));
        okText(answer, `deleting ${subscriptionLabel(ref)}`);
        const deleted = answer.status !== 204;
        printAnswer(options, { deleted }, () =>
          deleted ? `Deleted ${subscriptionLabel(ref)}.` : `There was no ${subscriptionLabel(ref)}.`,
        );
      }),
  );

  for (const [verb, description, done] of [
    [
      'pause',
      'Pause an event subscription: nothing is sent; its events wait (their time to live running).',
      'Paused',
    ],
    ['resume', 'Resume a paused event subscription: its waiting events are delivered.', 'Resumed'],
  ] as const) {
    subscription.addCommand(
      withRef(new Command(verb))
        .description(description)
        .action(async (raw: Options) => {
          const options = named(raw);
          const ref = refOf(options);
          const text = await callOk(
            await resolveApiTarget(options),
            'POST',
            `${subscriptionAdminPath(ref)}/${verb}`,
            undefined,
            `${verb === 'pause' ? 'pausing' : 'resuming'} ${subscriptionLabel(ref)}`,
          );
          printAnswer(options, JSON.parse(text) as HealthDocument, (health) =>
            [
              `${done} ${subscriptionLabel(ref)}: ${health.state}.`,
              ...(health.held === null ? [] : [`${health.held.events} events held (${health.held.state}).`]),
            ].join('\n'),
          );
        }),
    );
  }

  subscription.addCommand(
    withRef(new Command('validate'))
      .description('Send the endpoint validation handshake again (for an endpoint that has not agreed yet).')
      .action(async (raw: Options) => {
        const options = named(raw);
        const ref = refOf(options);
        const text = await callOk(
          await resolveApiTarget(options),
          'POST',
          `${subscriptionAdminPath(ref)}/validate`,
          undefined,
          `validating ${subscriptionLabel(ref)}`,
        );
        printAnswer(options, JSON.parse(text) as SubscriptionDocument, formatSubscription);
      }),
  );

  subscription.addCommand(
    withRef(new Command('signing-secret'))
      .description(
        'The secret the subscription signs its deliveries with (and earlier ones still honoured); --rotate makes a new one current.',
      )
      .option('--rotate', 'make a new secret current; the old one is honoured for --keep-previous-for')
      .option(
        '--secret <secret>',
        'with --rotate: this secret (whsec_<base64>, or an Ed25519 key whsk_<base64>) instead of a generated one',
      )
      .addOption(
        new Option(
          '--scheme <scheme>',
          'with --rotate: generate a v1 (HMAC) secret or a v1a (Ed25519) key',
        ).choices(['v1', 'v1a']),
      )
      .addOption(
        new Option(
          '--keep-previous-for <minutes>',
          'with --rotate: how long the old secret is still honoured',
        )
          .argParser(integer('--keep-previous-for', 0, 10_080))
          .default(1440),
      )
      .action(
        async (
          raw: Options & { rotate?: boolean; secret?: string; scheme?: string; keepPreviousFor: number },
        ) => {
          const options = { ...raw, ...named(raw) };
          const ref = refOf(options);
          const rotate = options.rotate === true;
          if (!rotate && (options.secret !== undefined || options.scheme !== undefined)) {
            throw new CliError('--secret and --scheme go with --rotate');
          }
          const text = await callOk(
            await resolveApiTarget(options),
            'POST',
            `${subscriptionAdminPath(ref)}/${rotate ? 'rotateSigningSecret' : 'getSigningSecret'}`,
            rotate
              ? {
                  keepPreviousForMinutes: options.keepPreviousFor,
                  ...(options.secret === undefined ? {} : { secret: options.secret }),
                  ...(options.scheme === undefined ? {} : { scheme: options.scheme }),
                }
              : undefined,
            `${rotate ? 'rotating' : 'reading'} the signing secret of ${subscriptionLabel(ref)}`,
          );
          printAnswer(options, JSON.parse(text) as SigningSecrets, (secrets) =>
            [
              `${rotate ? 'New signing' : 'Signing'} ${secrets.scheme === 'v1a' ? 'key (v1a, Ed25519; its public key)' : 'secret'} of ${subscriptionLabel(ref)} (since ${secrets.createdTime}):`,
              secrets.secret ?? secrets.publicKey ?? '',
              ...secrets.previousSecrets.map(
                (previous) =>
                  `Earlier ${previous.scheme === 'v1a' ? 'public key' : 'secret'}, still honoured until ${previous.validUntil}: ${previous.secret ?? previous.publicKey}`,
              ),
            ].join('\n'),
          );
        },
      ),
  );

  return subscription;
}

/** The signing-secret routes' answer: a v1 secret, or a v1a key's public key. */
interface SigningSecrets {
  scheme?: string;
  secret?: string;
  publicKey?: string;
  createdTime: string;
  previousSecrets: Array<{ scheme?: string; secret?: string; publicKey?: string; validUntil: string }>;
}
