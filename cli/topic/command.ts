/**
 * `gridwire topic create|update|show|list|delete|keys|regenerate-key`: topics (with `--namespace`, the
 * topics of a namespace, whose keys are the namespace's), with the Azure CLI's flag names
 * (`az eventgrid topic ...`). A client of the management API's topic routes, local by default or
 * `--api` (see `admin-api.ts`).
 *
 * The subcommands: `create.ts`, `update.ts`, `show` and `list` in `read.ts`, `delete.ts`, `keys`
 * and `regenerate-key` in `keys.ts`; what they share in `common.ts`, the body `create` and
 * `update` put in `body.ts`, the calls in `api.ts`.
 */
import { Command } from 'commander';
import { createCommand } from './create';
import { deleteCommand } from './delete';
import { keysCommand, regenerateKeyCommand } from './keys';
import { listCommand, showCommand } from './read';
import { updateCommand } from './update';

export { publishUrlOf, readTopic, requireTopic, type TopicDocument, topicKeys } from './api';

export function topicCommand(): Command {
  return new Command('topic')
    .description('Topics: create, update, show, list, delete, keys, regenerate-key (az eventgrid topic).')
    .addCommand(createCommand())
    .addCommand(updateCommand())
    .addCommand(showCommand())
    .addCommand(listCommand())
    .addCommand(deleteCommand())
    .addCommand(keysCommand())
    .addCommand(regenerateKeyCommand());
}
