/**
 * `gridwire topic keys` and `regenerate-key`: a topic's two access keys (a namespace topic's are
 * its namespace's), and one of them replaced while the other keeps working.
 */
import { Command, Option } from 'commander';
import { resolveApiTarget } from '../admin-api';
import { printAnswer } from '../output';
import { regenerateTopicKey, requireTopic, topicKeys } from './api';
import { type Options, refOf, withCommon } from './common';

const formatKeys = ({ key1, key2 }: { key1: string; key2: string }) => `key1: ${key1}\nkey2: ${key2}`;

export function keysCommand(): Command {
  return withCommon(new Command('keys'))
    .description("Print the topic's two access keys (a namespace topic's are its namespace's).")
    .argument('<name>', 'the topic name')
    .action(async (name: string, options: Options) => {
      const ref = refOf(name, options);
      const target = await resolveApiTarget(options);
      await requireTopic(target, ref);
      const keys = await topicKeys(target, ref);
      printAnswer(options, keys, formatKeys);
    });
}

export function regenerateKeyCommand(): Command {
  return withCommon(new Command('regenerate-key'))
    .description('Replace one access key; the other keeps working meanwhile.')
    .argument('<name>', 'the topic name')
    .addOption(
      new Option('--key-name <key>', 'the key to replace').choices(['key1', 'key2']).makeOptionMandatory(),
    )
    .action(async (name: string, options: Options & { keyName: 'key1' | 'key2' }) => {
      const ref = refOf(name, options);
      const target = await resolveApiTarget(options);
      await requireTopic(target, ref);
      const keys = await regenerateTopicKey(target, ref, options.keyName);
      printAnswer(options, keys, formatKeys);
    });
}
