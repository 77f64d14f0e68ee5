/**
 * The benchmark's load generator, run as a child process so publishing does not share the
 * stack's thread (on AWS, publishers are never on the functions' machines). It runs one plan
 * per request from the parent (a `publishAtRate` load, or the loopback reference loop) and sends
 * back its outcome.
 */
import { loopbackRequests, publishAtRate } from './load-client';
import type { PublisherMessage, PublisherRequest } from './publisher-protocol';

process.on('message', (request: PublisherRequest) => {
  if (request.type === 'stop') process.exit(0);
  if (request.type === 'run') {
    void publishAtRate(request.plan).then((outcome) => {
      process.send?.({ type: 'done', outcome } satisfies PublisherMessage);
    });
  }
  if (request.type === 'loopback') {
    void loopbackRequests(request.plan).then((outcome) => {
      process.send?.({ type: 'loopback-done', outcome } satisfies PublisherMessage);
    });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' } satisfies PublisherMessage);
