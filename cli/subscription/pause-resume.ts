/**
 * `gridwire subscription pause` and `resume`: nothing sent to the endpoint while paused (its
 * events wait, their time to live running), then the waiting events delivered.
 */
import { Command } from 'commander';
import { okData, resolveApiTarget, subscriptionLabel, subscriptionRoute } from '../admin-api';
import { printAnswer } from '../output';
import { named, type Options, refOf, withRef } from './common';

const VERBS = {
  pause: {
    description:
      'Pause an event subscription: nothing is sent; its events wait (their time to live running).',
    doing: 'pausing',
    done: 'Paused',
  },
  resume: {
    description: 'Resume a paused event subscription: its waiting events are delivered.',
    doing: 'resuming',
    done: 'Resumed',
  },
} as const;

/** `pause` or `resume`: the subscription's state after, and its events held. */
export function pauseOrResumeCommand(verb: keyof typeof VERBS): Command {
  const { description, doing, done } = VERBS[verb];
  return withRef(new Command(verb))
    .description(description)
    .action(async (raw: Options) => {
      const options = named(raw);
      const ref = refOf(options);
      const { client } = await resolveApiTarget(options);
      const answer = okData(
        await client.POST(subscriptionRoute(ref, `/${verb}`), { params: { path: ref } }),
        `${doing} ${subscriptionLabel(ref)}`,
      );
      printAnswer(options, answer, (health) =>
        [
          `${done} ${subscriptionLabel(ref)}: ${health.state}.`,
          ...(health.held === null ? [] : [`${health.held.events} events held (${health.held.state}).`]),
        ].join('\n'),
      );
    });
}
