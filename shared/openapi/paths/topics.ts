/** The admin API's topics, their keys, and the console's sessions. */
import { z } from 'zod';
import { sessionRequestSchema } from '../../management/session-routes';
import {
  topicBodySchema,
  unknownEventTypesSchema,
  validateEventsSchema,
} from '../../management/topic-schema';
import { PORTAL_PERMISSIONS, sessionScopeSchema } from '../../sessions/scope';
import {
  createdOrUpdated,
  deletedOrNone,
  isoTime,
  listOf,
  type OperationSpecs,
  ok,
  optionalJson,
} from '../spec';

const TOPICS = ['Topics'];

/** `systemData` of a resource. */
export const systemDataSchema = z.object({ createdAt: isoTime, lastModifiedAt: isoTime });

/** A custom topic's mapping as shown. */
export const inputSchemaMappingDocumentSchema = z.object({
  inputSchemaMappingType: z.literal('Json'),
  properties: z.record(
    z.string(),
    z.object({ sourceField: z.string().optional(), defaultValue: z.string().optional() }),
  ),
});

export const topicDocumentSchema = z
  .object({
    id: z.string().meta({ description: 'The resource id, ARM-shaped.' }),
    name: z.string(),
    type: z.literal('Microsoft.EventGrid/topics'),
    tags: z.record(z.string(), z.string()),
    properties: z.object({
      provisioningState: z.literal('Succeeded'),
      endpoint: z.string().meta({ description: 'Where to publish to this topic.' }),
      inputSchema: z.enum(['EventGridSchema', 'CloudEventSchemaV1_0', 'CustomEventSchema']),
      inputSchemaMapping: inputSchemaMappingDocumentSchema.optional(),
      deduplicationWindowInMinutes: z.number().int(),
      archive: z.object({ retentionInDays: z.number().int() }).nullable(),
      validateEvents: validateEventsSchema,
      unknownEventTypes: unknownEventTypesSchema,
      sources: z
        .array(
          z
            .object({
              kind: z.enum(['sqs', 'eventBridge']),
              name: z.string(),
              queueArn: z.string().meta({ description: 'The queue the publish function consumes.' }),
              format: z.enum(['topic', 'eventBridge']),
              bus: z.string().optional().meta({ description: "A bus source's bus." }),
              eventPattern: z.unknown().optional().meta({ description: "A bus source's rule pattern." }),
            })
            .meta({ id: 'TopicSource' }),
        )
        .optional()
        .meta({ description: 'Present when the stack brings events into the topic from queues or buses.' }),
    }),
    systemData: systemDataSchema,
  })
  .meta({ id: 'Topic' });

/** A topic's (or namespace's) two keys. */
export const keysSchema = z.object({ key1: z.string(), key2: z.string() }).meta({ id: 'Keys' });

export const regenerateKeyBodySchema = z
  .object({ keyName: z.enum(['key1', 'key2']) })
  .meta({ id: 'RegenerateKeyRequest' });

/** A session's scope as answered: a portal scope with its labels and permissions filled in. */
export const scopeDocumentSchema = z.union([
  z.object({ role: z.literal('operator') }),
  z.object({
    role: z.literal('portal'),
    topic: z.string().optional(),
    namespace: z.string().optional(),
    labels: z.array(z.string()),
    permissions: z.array(z.enum(PORTAL_PERMISSIONS)),
  }),
]);

const sessionDocumentSchema = z.object({
  id: z.string(),
  token: z.string().meta({ description: 'The bearer token (shown once).' }),
  expiresAt: isoTime,
  scope: scopeDocumentSchema,
});

export const TOPIC_OPERATIONS: OperationSpecs = {
  'GET /admin/topics': {
    summary: 'List topics',
    tags: TOPICS,
    answers: ok('The topics.', listOf(topicDocumentSchema)),
  },
  'PUT /admin/topics/{topic}': {
    summary: 'Create or update a topic',
    description:
      'Creates the topic (201) or updates its tags and settings (200); its input schema cannot change.',
    tags: TOPICS,
    body: optionalJson(topicBodySchema.meta({ id: 'TopicRequest' })),
    answers: createdOrUpdated('topic', topicDocumentSchema),
  },
  'GET /admin/topics/{topic}': {
    summary: 'Show a topic',
    tags: TOPICS,
    answers: ok('The topic.', topicDocumentSchema),
  },
  'DELETE /admin/topics/{topic}': {
    summary: 'Delete a topic',
    tags: TOPICS,
    answers: deletedOrNone('topic'),
  },
  'POST /admin/topics/{topic}/listKeys': {
    summary: "List a topic's keys",
    tags: TOPICS,
    answers: ok('The keys.', keysSchema),
  },
  'POST /admin/topics/{topic}/regenerateKey': {
    summary: 'Regenerate one of the keys',
    tags: TOPICS,
    body: regenerateKeyBodySchema,
    answers: ok('The keys, one of them new.', keysSchema),
  },
  'GET /admin/egress': {
    summary: 'Where requests to endpoints leave from',
    description:
      "The fixed public addresses deliveries come from, for receivers' allow-lists: the Elastic IPs of the NAT gateways the stack's `egress` prop made (or the addresses named for an existing VPC). Empty without static egress.",
    tags: ['Stack'],
    answers: ok(
      'Where requests leave from.',
      z
        .object({
          addresses: z.array(z.string()).meta({ description: 'Public IPv4 addresses; empty: none fixed.' }),
          staticAddresses: z.boolean(),
          proxy: z.boolean().meta({ description: 'Requests go through an egress proxy.' }),
        })
        .meta({ id: 'Egress' }),
    ),
  },
  'POST /admin/sessions': {
    summary: 'Make a console or portal session',
    description: 'A short-lived bearer token for the console (`operator`) or the portal (`portal`, scoped).',
    tags: ['Sessions'],
    body: sessionRequestSchema.extend({ scope: sessionScopeSchema }),
    answers: { 201: { description: 'The session.', schema: sessionDocumentSchema } },
  },
  'POST /admin/sessions/revokeAll': {
    summary: 'Revoke every session',
    tags: ['Sessions'],
    answers: ok(
      'Every session made before now is refused.',
      z.object({ revokedAt: isoTime, note: z.string() }),
    ),
  },
};
