/**
 * Publishing: to a topic with its key or a SAS token, with AWS credentials, and to a namespace
 * topic as the namespaces SDK does; and the validation URL of the endpoint handshake. The
 * publish bodies are checked by hand-written parsers (`shared/publish`), which keep each event's
 * text exactly as sent; the schemas here describe what they take.
 */
import { z } from 'zod';
import { CLOUD_EVENTS_CONTENT_TYPES } from '../../publish/cloud-events-schema';
import { anyJson, isoTime, type OperationSpec, type OperationSpecs, ok } from '../spec';

const PUBLISH = ['Publish'];

export const eventGridEventSchema = z
  .object({
    id: z.string().min(1),
    subject: z.string().min(1),
    eventType: z.string().min(1),
    eventTime: isoTime,
    data: anyJson.optional(),
    dataVersion: z.string().optional(),
    topic: z.string().optional(),
    metadataVersion: z.string().optional(),
  })
  .meta({ id: 'EventGridEvent', description: 'An event in the Event Grid schema.' });

export const cloudEventSchema = z
  .looseObject({
    specversion: z.literal('1.0'),
    id: z.string().min(1),
    source: z.string().min(1),
    type: z.string().min(1),
    subject: z.string().optional(),
    time: isoTime.optional(),
    datacontenttype: z.string().optional(),
    dataschema: z.string().optional(),
    data: anyJson.optional(),
    data_base64: z.string().optional(),
  })
  .meta({
    id: 'CloudEvent',
    description: 'A CloudEvents 1.0 event in structured mode; extension attributes are further members.',
  });

const customEvent = z.record(z.string(), anyJson).meta({
  id: 'CustomEvent',
  description: "An event in a custom schema topic's own shape (its input mapping reads it).",
});

/** What `application/json` carries, by the topic's input schema. */
const jsonEvents = z.union([
  z.array(eventGridEventSchema).meta({ description: 'Event Grid schema topics: an array of events.' }),
  z.array(cloudEventSchema).meta({ description: 'CloudEvents topics: an array of events.' }),
  customEvent,
  z.array(customEvent),
]);

const published = { description: 'Every event is durably queued.' };

/**
 * One CloudEvent in binary mode: its attributes as `ce-` headers, its data the body, as sent (any
 * content type); and the trace context carried to the deliveries.
 */
const publishHeaders = z.object({
  'ce-specversion': z
    .literal('1.0')
    .optional()
    .meta({ description: 'Binary mode: the event is in the headers.' }),
  'ce-id': z.string().optional(),
  'ce-source': z.string().optional(),
  'ce-type': z.string().optional(),
  'ce-subject': z.string().optional(),
  'ce-time': isoTime.optional(),
  traceparent: z
    .string()
    .optional()
    .meta({ description: 'W3C trace context, carried to the deliveries of the events.' }),
});

const duplicatesHeader = {
  'gridwire-duplicate-events': 'On topics with a de-duplication window: the ids of events already published.',
};

const publishOperation = (summary: string, description: string): OperationSpec => ({
  summary,
  description,
  tags: PUBLISH,
  headers: publishHeaders,
  body: {
    content: {
      'application/json': jsonEvents,
      [CLOUD_EVENTS_CONTENT_TYPES.single]: cloudEventSchema,
      [CLOUD_EVENTS_CONTENT_TYPES.batch]: z.array(cloudEventSchema),
    },
  },
  answers: { 200: { ...published, headers: duplicatesHeader } },
  errors: [400, 403, 404, 413, 415],
});

export const PUBLISH_OPERATIONS: OperationSpecs = {
  'POST /topics/{topic}/api/events': publishOperation(
    'Publish events to a topic',
    "Events in the topic's input schema. A CloudEvents topic also takes one event in binary mode: the `ce-` headers with the data as the body. The answer comes once every event is durably queued.",
  ),
  'POST /iam/topics/{topic}/api/events': publishOperation(
    'Publish events to a topic with AWS credentials',
    'As `POST /topics/{topic}/api/events`, authorised by IAM (`execute-api:Invoke` on this route) instead of a topic key.',
  ),
  'POST /namespaces/{namespace}/topics/{topicAction}': {
    summary: 'Publish CloudEvents to a namespace topic',
    description:
      'As the namespaces SDK sends them: `POST .../topics/<topic>:publish`; one event in binary mode has its attributes as `ce-` headers and its data as the body.',
    tags: PUBLISH,
    headers: publishHeaders,
    body: {
      content: {
        [CLOUD_EVENTS_CONTENT_TYPES.single]: cloudEventSchema,
        [CLOUD_EVENTS_CONTENT_TYPES.batch]: z.array(cloudEventSchema),
        'application/json': z.array(cloudEventSchema),
      },
    },
    answers: { 200: { ...published, schema: z.object({}), headers: duplicatesHeader } },
    errors: [400, 403, 404, 413, 415],
  },
  'GET /eventSubscriptions/validate': {
    summary: "Validate a subscription's endpoint (the validation URL)",
    description:
      "The URL sent to a webhook in the validation event's `validationUrl`: a GET validates the endpoint.",
    tags: ['Endpoint validation'],
    query: z.object({ topic: z.string(), subscription: z.string(), code: z.string() }),
    answers: ok('The endpoint is validated.', z.object({ message: z.string() })),
    errors: [404],
  },
};
