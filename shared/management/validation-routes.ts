/**
 * The endpoint validation routes: re-triggering a subscription's handshake (admin) and the
 * validation URL, whose GET by anyone holding the code validates the endpoint by hand while the
 * window is open. Classic and namespace subscriptions share them.
 */
import { VALIDATION_PATH } from '../config/routes';
import { updateValidation, waitingSubscription, withValidation } from '../delivery/handshake';
import { endpointAgreed, newValidation } from '../delivery/rules/handshake';
import { endpointIdOf, type Subscription } from '../domain/model';
import { type HttpEvent, jsonResult, publicBaseUrl } from '../http/api-gateway';
import { ApiError, badRequest, conflict, notFound } from '../http/errors';
import { ConcurrentChangeError } from '../storage/table';
import type {
  ClockDeps,
  IdDeps,
  PropagationDeps,
  QueueDeps,
  SubscriptionStoreDeps,
  UrlDeps,
  ValidationDeps,
} from './deps';
import type { Operation, Operations, SubscriptionFinder } from './operation';
import { queueHandshake } from './subscription-store-ops';
import { propagated } from './timing';

/**
 * What restarting a validation uses: the subscription's store, the time, a new code, the window,
 * the handshake's queue and the public URL its validation URL starts with.
 */
export type ValidationRouteDeps = SubscriptionStoreDeps &
  ClockDeps &
  IdDeps &
  ValidationDeps &
  QueueDeps &
  UrlDeps;

/** What the validation URL uses: the subscription's store, the time, and the wait for publishers. */
export type ValidationUrlDeps = SubscriptionStoreDeps & ClockDeps & PropagationDeps;

/** `POST <subscription>/validate` for subscriptions found by `find`, shown by `document`. */
export function validationOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
  document: (subscription: Subscription, nowMs: number) => unknown,
): Operations<D & ValidationRouteDeps> {
  return {
    [`POST ${subscriptionPath}/validate`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      // An endpoint that agreed (or never had to) has nothing to validate again.
      if (endpointAgreed(subscription)) return jsonResult(200, document(subscription, deps.clock.now()));
      const restarted = await restartValidation(deps, subscription, publicBaseUrl(deps.publicUrl()));
      return jsonResult(200, document(restarted, deps.clock.now()));
    },
  };
}

/** A fresh validation (new code, a new window) for a subscription still waiting, and its handshake. */
async function restartValidation(
  deps: ValidationRouteDeps,
  subscription: Subscription,
  baseUrl: string,
): Promise<Subscription> {
  const nowMs = deps.clock.now();
  const restarted = withValidation(
    subscription,
    newValidation(endpointIdOf(subscription.destination), deps.newId(), nowMs, deps.validationWindowMs),
    nowMs,
  );
  try {
    await deps.subscriptions.put(restarted, subscription.version);
  } catch (error) {
    if (error instanceof ConcurrentChangeError) {
      throw conflict(
        `The event subscription '${subscription.name}' was changed by another request at the same time; try again.`,
      );
    }
    throw error;
  }
  await queueHandshake(deps, restarted, baseUrl);
  return restarted;
}

const queryValue = (event: HttpEvent, name: string): string => {
  const value = event.queryStringParameters?.[name];
  if (value === undefined || value === '') throw badRequest(`${name}: the query parameter is required.`);
  return value;
};

/** `GET /eventSubscriptions/validate?topic=&subscription=&code=`: the validation URL. */
export const validationUrlOperations: Readonly<Record<string, Operation<ValidationUrlDeps>>> = {
  [`GET ${VALIDATION_PATH}`]: async (event, deps) => {
    const key = {
      topic: queryValue(event, 'topic'),
      subscription: queryValue(event, 'subscription'),
      code: queryValue(event, 'code'),
    };
    const waiting = await waitingSubscription(deps.subscriptions, key);
    const expiresAt = waiting?.validation?.expiresAt;
    if (expiresAt !== undefined && deps.clock.now() > expiresAt) {
      throw new ApiError(
        400,
        'ValidationExpired',
        `This validation URL expired at ${new Date(expiresAt).toISOString()}; ask the subscription's owner to start the validation again (POST .../eventSubscriptions/${key.subscription}/validate).`,
      );
    }
    const validated =
      waiting === undefined
        ? undefined
        : await updateValidation(
            deps.subscriptions,
            key,
            (validation) => ({ ...validation, validatedAt: deps.clock.now() }),
            () => deps.clock.now(),
          );
    if (validated === undefined) {
      throw notFound(
        'No validation is waiting for this code (it was used, replaced, or its subscription is gone).',
      );
    }
    await propagated(deps);
    return jsonResult(200, {
      message: `The endpoint of event subscription '${validated.name}' is validated; events are delivered to it from now on.`,
    });
  },
};
