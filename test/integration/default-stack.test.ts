/**
 * The end-to-end files that need a local stack with the default options and nothing stack-wide,
 * run against one shared stack (`test/support/shared-stack.ts`) so its start-up is paid once:
 * each part is a file of `default-stack/`, its tests in a block named after it, in this order.
 * A part keeps its own topics, namespaces, dead-letter subscriptions and webhook server; its
 * tests are as they were in a file of their own.
 */
import { closeSharedTestStack } from '../support/shared-stack';

afterAll(closeSharedTestStack, 30_000);

const PARTS = [
  'deadletters',
  'endpoint-url',
  'event-catalog',
  'extreme-numbers',
  'filters',
  'function-url-publish',
  'malformed-publishes',
  'message-log-successor',
  'namespace-publish',
  'publish-auth',
  'publish-iam',
];

for (const part of PARTS) {
  describe(part, () => {
    require(`./default-stack/${part}`);
  });
}
