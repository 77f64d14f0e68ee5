/**
 * What the `gridwire subscription` subcommands share: `--topic`, `--namespace` and `--name`,
 * the subscription they name, reading it, and saving one (create and update).
 */
import type { Command } from 'commander';
import {
  type ApiTarget,
  type ApiTargetOptions,
  type JsonBody,
  namespaceOption,
  okData,
  type SubscriptionRef,
  type SubscriptionRoute,
  subscriptionLabel,
  subscriptionRoute,
  withApiTargetOptions,
} from '../admin-api';
import { type JsonOption, printAnswer } from '../output';
import type { SubscriptionFlags } from './flags';
import { formatSubscription, type SubscriptionDocument } from './format';

/** A document as the plain JSON it came as. */
export const asJson = (document: SubscriptionDocument) => document as unknown as Record<string, unknown>;

export type Options = ApiTargetOptions & SubscriptionRef & SubscriptionFlags & JsonOption;

/** `--topic`, `--namespace` and `--name` (the subscription), required where marked. */
export function withRef(command: Command, named = true): Command {
  command
    .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
    .addOption(namespaceOption());
  if (named) command.requiredOption('--name <name>', 'the event subscription');
  return withApiTargetOptions(command).option('--json', 'print the API’s JSON document instead of text');
}

/** The subscription's document, or `undefined` when there is none. */
export async function readSubscription(
  target: ApiTarget,
  ref: SubscriptionRef,
): Promise<SubscriptionDocument | undefined> {
  const route = subscriptionRoute(ref);
  const found = await target.client.GET(route, { params: { path: ref } });
  if (found.response.status === 404) return undefined;
  return okData(
    await target.client.GET(route, { params: { path: ref } }),
    `reading ${subscriptionLabel(ref)}`,
  );
}

export const refOf = (options: Options): SubscriptionRef => ({
  topic: options.topic,
  subscription: options.subscription,
  ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
});

/** `--name` is the subscription: commander keeps it as `name`. */
export const named = (options: Options & { name?: string }): Options => ({
  ...options,
  subscription: options.name ?? options.subscription,
});

/** PUTs `body` and prints the answer: "Created" (201) or "Updated" (200). */
export async function save(
  target: ApiTarget,
  ref: SubscriptionRef,
  body: unknown,
  options: JsonOption,
): Promise<void> {
  const result = await target.client.PUT(subscriptionRoute(ref), {
    params: { path: ref },
    // Built from the flags (`body.ts`); the API checks it.
    body: body as JsonBody<SubscriptionRoute, 'put'>,
  });
  const document: SubscriptionDocument = okData(result, `saving ${subscriptionLabel(ref)}`);
  printAnswer(
    options,
    document,
    (doc) =>
      `${result.response.status === 201 ? 'Created' : 'Updated'} ${subscriptionLabel(ref)}.\n${formatSubscription(doc)}`,
  );
}
