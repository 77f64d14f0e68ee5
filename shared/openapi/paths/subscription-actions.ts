/**
 * What is done to one event subscription, classic and namespace: its message log and resend,
 * health, enable, pause and resume, validation, test events, signing secrets, replays, recovery
 * and dead letters.
 */
import type { OperationSpecs } from '../spec';

export const SUBSCRIPTION_ACTION_OPERATIONS: OperationSpecs = {};
