/**
 * One local stack (default options) shared by the parts of a merged end-to-end file
 * (`test/integration/default-stack.test.ts`), so its start-up is paid once: each part asks for it
 * in its `beforeAll` (the first starts it), and the merged file closes it after the last part.
 * Parts that share it keep to their own topics, namespaces, dead-letter subscriptions and webhook
 * server, and check nothing stack-wide.
 */
import { startTestStack, type TestStack } from './local-stack';

let shared: Promise<TestStack> | undefined;

/** The shared stack, started on the first call. */
export function sharedTestStack(): Promise<TestStack> {
  shared ??= startTestStack();
  return shared;
}

/** Stops the shared stack, if it was started. */
export async function closeSharedTestStack(): Promise<void> {
  const started = shared;
  shared = undefined;
  await (await started)?.close();
}
