/**
 * Which function the code running now belongs to. On AWS each function has a process (and an IAM
 * role) of its own; locally the four share one process and one set of SDK clients, so this is the
 * only way to tell, at an SDK call, whose role would be making it (the tests check every call
 * against that role's policy). Work a handler starts, awaited or not, stays its function's; the
 * stack's own calls (creating resources, the admission gate standing in for API Gateway, the
 * status route) run outside any function.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FunctionKey } from '../shared/config/resources';

const current = new AsyncLocalStorage<FunctionKey>();

/** Runs `work` (and everything it starts) as function `fn`. */
export const runAsFunction = <T>(fn: FunctionKey, work: () => T): T => current.run(fn, work);

/** The function the running code belongs to; `undefined` for the stack's own work. */
export const currentFunction = (): FunctionKey | undefined => current.getStore();

/** `handler`, every invocation run as function `fn`. */
export const asFunction =
  <A extends unknown[], R>(fn: FunctionKey, handler: (...args: A) => R) =>
  (...args: A): R =>
    runAsFunction(fn, () => handler(...args));
