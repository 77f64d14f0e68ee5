/**
 * `gridwire subscription update`: some settings of an event subscription changed, the others
 * kept as they are (the body is the document read, with the flags given laid over it).
 */
import { Command } from 'commander';
import {
  type ApiTarget,
  okData,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionLabel,
  subscriptionRoute,
} from '../admin-api';
import { CliError } from '../errors';
import { classicBodyOf, classicSubscriptionBody, namespaceBodyOf, namespaceSubscriptionBody } from './body';
import { asJson, named, type Options, readSubscription, refOf, save, withRef } from './common';
import { deliversToResource, keepsTokenUrl } from './destination-flags';
import { withSubscriptionFlags } from './flag-options';
import type { SubscriptionDocument } from './format';

/**
 * The endpoint URL (and an OAuth 2.0 token URL) the body keeps. The document shows them without
 * their query string; the API gives them whole (an AWS resource, or a webhook given anew without
 * a token URL kept, needs no asking).
 */
async function urlsKept(
  target: ApiTarget,
  ref: SubscriptionRef,
  document: SubscriptionDocument,
  options: Options,
): Promise<{ endpointUrl: string; tokenUrl?: string }> {
  const resource = deliversToResource(asJson(document)) || options.resourceArn !== undefined;
  const full =
    resource || (options.endpoint !== undefined && !keepsTokenUrl(asJson(document), options))
      ? undefined
      : okData(
          await target.client.POST(subscriptionRoute(ref, '/getFullUrl'), { params: { path: ref } }),
          `reading the endpoint URL of ${subscriptionLabel(ref)}`,
        );
  const endpointUrl = options.endpoint ?? (resource ? '' : (full?.endpointUrl ?? ''));
  return { endpointUrl, ...(full?.tokenUrl === undefined ? {} : { tokenUrl: full.tokenUrl }) };
}

export function updateCommand(): Command {
  return withSubscriptionFlags(withRef(new Command('update')))
    .description('Change some settings of an event subscription; the others stay as they are.')
    .action(async (raw: Options) => {
      const options = named(raw);
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      const document = await readSubscription(target, ref);
      if (document === undefined) throw new CliError(`no ${subscriptionLabel(ref)}`);
      const gaps = await urlsKept(target, ref, document, options);
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
    });
}
