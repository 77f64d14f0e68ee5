/**
 * A management route's operation, and how routes shared by classic and namespace subscriptions
 * find the subscription they act on. An operation asks for the capability groups it uses
 * (`deps.ts`); the API serves every one with all of them ({@link ManagementDeps}).
 */
import type { Subscription } from '../domain/model';
import type { HttpEvent, HttpResult } from '../http/api-gateway';
import type { ReadOptions } from '../storage/table';
import type { ManagementDeps } from './deps';

/** Answers one route's request with what it depends on (`D`: the capability groups it uses). */
export type Operation<D = ManagementDeps> = (event: HttpEvent, deps: D) => Promise<HttpResult>;

/** Operations by route key (`GET /admin/topics/{topic}`). */
export type Operations<D = ManagementDeps> = Record<string, Operation<D>>;

/** Finds the route's subscription (404 when it does not exist), with what `D` provides. */
export type SubscriptionFinder<D> = (
  event: HttpEvent,
  deps: D,
  options?: ReadOptions,
) => Promise<Subscription>;
