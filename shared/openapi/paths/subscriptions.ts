/** Event subscriptions, classic and namespace: create, read, list, delete, full URL. */
import type { OperationSpecs } from '../spec';

export const SUBSCRIPTION_OPERATIONS: OperationSpecs = {};
