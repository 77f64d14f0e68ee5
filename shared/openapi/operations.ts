/**
 * Every route's description, by route key, gathered from `paths/`: one file per part of the API.
 * `document.ts` fails naming any route of `shared/config/routes.ts` left out.
 */
import { EVENT_TYPE_OPERATIONS } from './paths/event-types';
import { NAMESPACE_OPERATIONS } from './paths/namespaces';
import { PAGE_OPERATIONS } from './paths/pages';
import { PUBLISH_OPERATIONS } from './paths/publish';
import { SUBSCRIPTION_ACTION_OPERATIONS } from './paths/subscription-actions';
import { SUBSCRIPTION_OPERATIONS } from './paths/subscriptions';
import { TOPIC_OPERATIONS } from './paths/topics';
import type { OperationSpecs } from './spec';

export const OPERATIONS: OperationSpecs = {
  ...PUBLISH_OPERATIONS,
  ...TOPIC_OPERATIONS,
  ...NAMESPACE_OPERATIONS,
  ...EVENT_TYPE_OPERATIONS,
  ...SUBSCRIPTION_OPERATIONS,
  ...SUBSCRIPTION_ACTION_OPERATIONS,
  ...PAGE_OPERATIONS,
};
