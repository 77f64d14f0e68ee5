/**
 * `gridwire subscription signing-secret`: the secret (or v1a key) a subscription signs its
 * deliveries with, and the earlier ones still honoured; `--rotate` makes a new one current.
 */
import { Command, Option } from 'commander';
import {
  okData,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionLabel,
  subscriptionRoute,
} from '../admin-api';
import { CliError } from '../errors';
import { integer } from '../options';
import { printAnswer } from '../output';
import { named, type Options, refOf, withRef } from './common';

/** The signing-secret routes' answer: a v1 secret, or a v1a key's public key. */
interface SigningSecrets {
  scheme?: string;
  secret?: string;
  publicKey?: string;
  createdTime: string;
  previousSecrets: Array<{ scheme?: string; secret?: string; publicKey?: string; validUntil: string }>;
}

type SigningSecretOptions = Options & {
  rotate?: boolean;
  secret?: string;
  /** `--scheme`'s choices. */
  scheme?: 'v1' | 'v1a';
  keepPreviousFor: number;
};

/** The secrets as printed: the current one, then each earlier one with when it stops being honoured. */
function formatSecrets(secrets: SigningSecrets, ref: SubscriptionRef, rotated: boolean): string {
  return [
    `${rotated ? 'New signing' : 'Signing'} ${secrets.scheme === 'v1a' ? 'key (v1a, Ed25519; its public key)' : 'secret'} of ${subscriptionLabel(ref)} (since ${secrets.createdTime}):`,
    secrets.secret ?? secrets.publicKey ?? '',
    ...secrets.previousSecrets.map(
      (previous) =>
        `Earlier ${previous.scheme === 'v1a' ? 'public key' : 'secret'}, still honoured until ${previous.validUntil}: ${previous.secret ?? previous.publicKey}`,
    ),
  ].join('\n');
}

export function signingSecretCommand(): Command {
  return withRef(new Command('signing-secret'))
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
      new Option('--keep-previous-for <minutes>', 'with --rotate: how long the old secret is still honoured')
        .argParser(integer('--keep-previous-for', 0, 10_080))
        .default(1440),
    )
    .action(async (raw: SigningSecretOptions) => {
      const options = { ...raw, ...named(raw) };
      const ref = refOf(options);
      const rotate = options.rotate === true;
      if (!rotate && (options.secret !== undefined || options.scheme !== undefined)) {
        throw new CliError('--secret and --scheme go with --rotate');
      }
      const { client } = await resolveApiTarget(options);
      const doing = `${rotate ? 'rotating' : 'reading'} the signing secret of ${subscriptionLabel(ref)}`;
      const secrets: SigningSecrets = rotate
        ? okData(
            await client.POST(subscriptionRoute(ref, '/rotateSigningSecret'), {
              params: { path: ref },
              body: {
                keepPreviousForMinutes: options.keepPreviousFor,
                ...(options.secret === undefined ? {} : { secret: options.secret }),
                ...(options.scheme === undefined ? {} : { scheme: options.scheme }),
              },
            }),
            doing,
          )
        : okData(
            await client.POST(subscriptionRoute(ref, '/getSigningSecret'), { params: { path: ref } }),
            doing,
          );
      printAnswer(options, secrets, (answer) => formatSecrets(answer, ref, rotate));
    });
}
