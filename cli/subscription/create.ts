/** `gridwire subscription create`: a new event subscription (or one of the same name replaced). */
import { Command } from 'commander';
import { resolveApiTarget } from '../admin-api';
import { CliError } from '../errors';
import { classicSubscriptionBody, namespaceSubscriptionBody } from './body';
import { named, type Options, refOf, save, withRef } from './common';
import { withSubscriptionFlags } from './flag-options';

export function createCommand(): Command {
  return withSubscriptionFlags(withRef(new Command('create')))
    .description('Create an event subscription (or replace one of the same name).')
    .action(async (raw: Options) => {
      const options = named(raw);
      if (options.endpoint === undefined && options.resourceArn === undefined) {
        throw new CliError('give --endpoint (a webhook) or --resource-arn (an AWS resource)');
      }
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      let body: Record<string, unknown>;
      try {
        body =
          ref.namespace === undefined ? classicSubscriptionBody(options) : namespaceSubscriptionBody(options);
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      await save(target, ref, body, options);
    });
}
