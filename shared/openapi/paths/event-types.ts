/** The admin API's event catalogs of classic and namespace topics. */
import {
  eventTypeBodySchema,
  eventTypeDocumentSchema,
  eventTypeListSchema,
} from '../../management/event-type-schema';
import { deletedOrNone, type OperationSpecs } from '../spec';

const EVENT_TYPES = ['Event types'];

const document = eventTypeDocumentSchema.meta({ id: 'EventType' });
const list = eventTypeListSchema.meta({ id: 'EventTypeList' });
const body = eventTypeBodySchema.meta({ id: 'EventTypeRequest' });

/** The four routes of a catalog under `topicPath`, `kind` naming the topic in the summaries. */
function catalogOperations(topicPath: string, kind: string): OperationSpecs {
  return {
    [`GET ${topicPath}/eventTypes`]: {
      summary: `List the event types of a ${kind}`,
      description:
        'The catalog, sorted by name; each type without its schema and example (show the type for them).',
      tags: EVENT_TYPES,
      answers: { 200: { description: 'The catalog.', schema: list } },
    },
    [`PUT ${topicPath}/eventTypes/{eventType}`]: {
      summary: `Create or replace an event type of a ${kind}`,
      description:
        'Creates the type (201) or replaces it whole (200). A schema must be a valid JSON Schema draft 2020-12 that compiles, and an example given with one must match it (400 naming the field and what failed). At most 100 types per topic. Answered once publishers see the change: a topic with validateEvents checks the next publish against it.',
      tags: EVENT_TYPES,
      body,
      answers: {
        200: { description: 'The type, replaced.', schema: document },
        201: { description: 'The type, created.', schema: document },
      },
    },
    [`GET ${topicPath}/eventTypes/{eventType}`]: {
      summary: `Show an event type of a ${kind}`,
      tags: EVENT_TYPES,
      answers: { 200: { description: 'The type, with its schema and example.', schema: document } },
    },
    [`DELETE ${topicPath}/eventTypes/{eventType}`]: {
      summary: `Delete an event type of a ${kind}`,
      tags: EVENT_TYPES,
      answers: deletedOrNone('event type'),
    },
  };
}

export const EVENT_TYPE_OPERATIONS: OperationSpecs = {
  ...catalogOperations('/admin/topics/{topic}', 'topic'),
  ...catalogOperations('/admin/namespaces/{namespace}/topics/{topic}', 'namespace topic'),
};
