/**
 * A topic's event catalog: `PUT <topic>/eventTypes/{eventType}` with
 * `{"description"?, "schema"?, "example"?}` creates the type or replaces it (201 or 200, its
 * document), `GET <topic>/eventTypes` lists the catalog, `GET .../eventTypes/{eventType}` shows one
 * type with its schema and example, and `DELETE .../eventTypes/{eventType}` removes it (200, or 204
 * when there was none). On classic topics and namespace topics alike (`topicPath`). A change is
 * answered once publishers see it (`propagated`): a topic with `validateEvents` checks the next
 * publish against the catalog as changed.
 */
import { EVENT_TYPE_LIMITS, type EventType, eventTypeNameProblem } from '../domain/event-types';
import { emptyResult, type HttpEvent, jsonResult, parseJsonBody, pathParam } from '../http/api-gateway';
import { badRequest, notFound } from '../http/errors';
import type { ClockDeps, EventTypeDeps, PropagationDeps } from './deps';
import {
  eventTypeDocument,
  eventTypeSummary,
  MAX_EVENT_TYPE_BODY_BYTES,
  parseEventTypeBody,
} from './event-type-schema';
import type { Operations } from './operation';
import { now, propagated } from './timing';

export type EventTypeRouteDeps = EventTypeDeps & ClockDeps & PropagationDeps;

/**
 * The topic a catalog route names: its id (`<topic>` or `<namespace>/<topic>`) and how messages
 * name it (`topic 'orders'`, `topic 'carts' of namespace 'shop'`).
 */
export interface CatalogTopic {
  id: string;
  label: string;
}

/** Finds the route's topic (404 when it does not exist), with what `D` provides. */
export type CatalogTopicFinder<D> = (event: HttpEvent, deps: D) => Promise<CatalogTopic>;

/** The `{eventType}` path parameter, checked: a 400 naming the rule. */
export function eventTypeParam(event: HttpEvent): string {
  const name = pathParam(event, 'eventType');
  const problem = eventTypeNameProblem(name);
  if (problem !== undefined)
    throw badRequest(`The event type '${name}' is invalid: ${problem}.`, 'InvalidName');
  return name;
}

const notInCatalog = (name: string, topic: CatalogTopic) =>
  notFound(`The event type '${name}' is not in the event catalog of ${topic.label}.`);

/** The catalog routes on the topics under `topicPath`. */
export function eventTypeOperations<D>(
  topicPath: string,
  findTopic: CatalogTopicFinder<D>,
): Operations<D & EventTypeRouteDeps> {
  return {
    [`PUT ${topicPath}/eventTypes/{eventType}`]: async (event, deps) => {
      const name = eventTypeParam(event);
      const topic = await findTopic(event, deps);
      const input = parseEventTypeBody(parseJsonBody(event, MAX_EVENT_TYPE_BODY_BYTES));
      const existing = await deps.eventTypes.get(topic.id, name, { consistent: true });
      if (existing === undefined) {
        const count = (await deps.eventTypes.list(topic.id)).length;
        if (count >= EVENT_TYPE_LIMITS.perTopic) {
          throw badRequest(
            `The event catalog of ${topic.label} already lists ${count} event types; the limit is ${EVENT_TYPE_LIMITS.perTopic} per topic.`,
            'QuotaExceeded',
          );
        }
      }
      const at = now(deps).toISOString();
      const entry: EventType = {
        topic: topic.id,
        name: existing?.name ?? name,
        ...input,
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
      if (!(await deps.eventTypes.put(entry))) throw notFound(`The ${topic.label} does not exist.`);
      // Publishers validate the next publish with the catalog as changed.
      await propagated(deps);
      return jsonResult(existing === undefined ? 201 : 200, eventTypeDocument(entry));
    },

    [`GET ${topicPath}/eventTypes`]: async (event, deps) => {
      const topic = await findTopic(event, deps);
      const entries = await deps.eventTypes.list(topic.id);
      return jsonResult(200, { value: entries.map(eventTypeSummary) });
    },

    [`GET ${topicPath}/eventTypes/{eventType}`]: async (event, deps) => {
      const name = eventTypeParam(event);
      const topic = await findTopic(event, deps);
      const entry = await deps.eventTypes.get(topic.id, name);
      if (entry === undefined) throw notInCatalog(name, topic);
      return jsonResult(200, eventTypeDocument(entry));
    },

    [`DELETE ${topicPath}/eventTypes/{eventType}`]: async (event, deps) => {
      const name = eventTypeParam(event);
      const topic = await findTopic(event, deps);
      const deleted = await deps.eventTypes.delete(topic.id, name, now(deps));
      if (deleted) await propagated(deps);
      return emptyResult(deleted ? 200 : 204);
    },
  };
}
