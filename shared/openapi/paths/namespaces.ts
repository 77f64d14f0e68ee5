/** The admin API's namespaces, their keys and their topics. */
import { z } from 'zod';
import { namespaceBodySchema, namespaceTopicBodySchema } from '../../management/namespace-schema';
import { unknownEventTypesSchema, validateEventsSchema } from '../../management/topic-schema';
import { createdOrUpdated, deletedOrNone, listOf, type OperationSpecs, ok, optionalJson } from '../spec';
import { keysSchema, regenerateKeyBodySchema, systemDataSchema } from './topics';

const NAMESPACES = ['Namespaces'];

export const namespaceDocumentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.literal('Microsoft.EventGrid/namespaces'),
    tags: z.record(z.string(), z.string()),
    properties: z.object({ provisioningState: z.literal('Succeeded') }),
    systemData: systemDataSchema,
  })
  .meta({ id: 'Namespace' });

export const namespaceTopicDocumentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.literal('Microsoft.EventGrid/namespaces/topics'),
    properties: z.object({
      provisioningState: z.literal('Succeeded'),
      publisherType: z.literal('Custom'),
      inputSchema: z.literal('CloudEventSchemaV1_0'),
      eventRetentionInDays: z.number().int(),
      deduplicationWindowInMinutes: z.number().int(),
      archive: z.object({ retentionInDays: z.number().int() }).nullable(),
      validateEvents: validateEventsSchema,
      unknownEventTypes: unknownEventTypesSchema,
    }),
    systemData: systemDataSchema,
  })
  .meta({ id: 'NamespaceTopic' });

export const NAMESPACE_OPERATIONS: OperationSpecs = {
  'GET /admin/namespaces': {
    summary: 'List namespaces',
    tags: NAMESPACES,
    answers: ok('The namespaces.', listOf(namespaceDocumentSchema)),
  },
  'PUT /admin/namespaces/{namespace}': {
    summary: 'Create or update a namespace',
    tags: NAMESPACES,
    body: optionalJson(namespaceBodySchema),
    answers: createdOrUpdated('namespace', namespaceDocumentSchema),
  },
  'GET /admin/namespaces/{namespace}': {
    summary: 'Show a namespace',
    tags: NAMESPACES,
    answers: ok('The namespace.', namespaceDocumentSchema),
  },
  'DELETE /admin/namespaces/{namespace}': {
    summary: 'Delete a namespace',
    tags: NAMESPACES,
    answers: deletedOrNone('namespace'),
  },
  'POST /admin/namespaces/{namespace}/listKeys': {
    summary: "List a namespace's keys",
    tags: NAMESPACES,
    answers: ok('The keys.', keysSchema),
  },
  'POST /admin/namespaces/{namespace}/regenerateKey': {
    summary: 'Regenerate one of the keys',
    tags: NAMESPACES,
    body: regenerateKeyBodySchema,
    answers: ok('The keys, one of them new.', keysSchema),
  },
  'GET /admin/namespaces/{namespace}/topics': {
    summary: "List a namespace's topics",
    tags: NAMESPACES,
    answers: ok('The topics.', listOf(namespaceTopicDocumentSchema)),
  },
  'PUT /admin/namespaces/{namespace}/topics/{topic}': {
    summary: 'Create or update a namespace topic',
    tags: NAMESPACES,
    body: optionalJson(namespaceTopicBodySchema),
    answers: createdOrUpdated('topic', namespaceTopicDocumentSchema),
  },
  'GET /admin/namespaces/{namespace}/topics/{topic}': {
    summary: 'Show a namespace topic',
    tags: NAMESPACES,
    answers: ok('The topic.', namespaceTopicDocumentSchema),
  },
  'DELETE /admin/namespaces/{namespace}/topics/{topic}': {
    summary: 'Delete a namespace topic',
    tags: NAMESPACES,
    answers: deletedOrNone('topic'),
  },
};
