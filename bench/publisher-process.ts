/**
 * The benchmark's load generator, run as a child process so publishing does not share the
 * stack's thread (on AWS, publishers are never on the functions' machines). It runs one
 * `publishAtRate` plan per request from the parent and sends back its outcome.
 */
import { type PublishOutcome, type PublishPlan, publishAtRate } from './load';

export type PublisherRequest = { type: 'run'; plan: PublishPlan } | { type: 'stop' };
export type PublisherMessage = { type: 'ready' } | { type: 'done'; outcome: PublishOutcome };

process.on('message', (request: PublisherRequest) => {
  if (request.type === 'stop') process.exit(0);
  if (request.type === 'run') {
    void publishAtRate(request.plan).then((outcome) => {
      process.send?.({ type: 'done', outcome } satisfies PublisherMessage);
    });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' } satisfies PublisherMessage);
