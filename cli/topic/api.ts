/**
 * The topic routes of the management API as `gridwire topic` (and `publish`) call them: a
 * topic's document (read, and put), the URL its events are published to, its keys (a namespace topic's are its
 * namespace's), and a namespace made when a namespace topic needs one.
 */
import {
  type ApiTarget,
  type JsonBody,
  okData,
  type TopicRef,
  type TopicRoute,
  topicLabel,
  topicRoute,
} from '../admin-api';
import { CliError } from '../errors';

/** A topic document as the API shows it, classic or namespace (the parts printed here). */
export interface TopicDocument {
  name: string;
  /** A classic topic's (namespace topics have none). */
  tags?: Record<string, string>;
  properties: {
    endpoint?: string;
    inputSchema?: string;
    eventRetentionInDays?: number;
    inputSchemaMapping?: { properties?: Record<string, unknown> };
    /** 0: off (absent from an API older than the setting). */
    deduplicationWindowInMinutes?: number;
    /** `null`: off (absent from an API older than the setting). */
    archive?: { retentionInDays: number } | null;
    /** Absent from an API older than the setting. */
    validateEvents?: boolean;
    unknownEventTypes?: 'allow' | 'reject';
    /** The queues and buses the stack brings events in from (absent: none). */
    sources?: {
      kind: 'sqs' | 'eventBridge';
      name: string;
      queueArn: string;
      format: 'topic' | 'eventBridge';
      bus?: string;
      eventPattern?: unknown;
    }[];
  };
}

/** The URL publishers post the topic's events to. */
export function publishUrlOf(target: ApiTarget, ref: TopicRef, document?: TopicDocument): string {
  if (ref.namespace === undefined) {
    return (
      document?.properties.endpoint ??
      `${target.url.replace(/\/+$/, '')}/topics/${encodeURIComponent(ref.topic)}/api/events`
    );
  }
  return `${target.url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(ref.namespace)}/topics/${encodeURIComponent(ref.topic)}:publish`;
}

/** The topic's document, or `undefined` when there is none. */
export async function readTopic(target: ApiTarget, ref: TopicRef): Promise<TopicDocument | undefined> {
  const result = await target.client.GET(topicRoute(ref), { params: { path: ref } });
  if (result.response.status === 404) return undefined;
  return okData(result, `reading ${topicLabel(ref)}`);
}

/** The topic's document; "no topic named ..." when there is none. */
export async function requireTopic(target: ApiTarget, ref: TopicRef): Promise<TopicDocument> {
  const document = await readTopic(target, ref);
  if (document !== undefined) return document;
  const where = ref.namespace === undefined ? '' : ` in namespace '${ref.namespace}'`;
  throw new CliError(`no topic named '${ref.topic}'${where} (gridwire topic list shows them)`);
}

/** PUTs the topic's body (`doing`: what a failure says was being done); its document, and whether it was made. */
export async function putTopic(
  target: ApiTarget,
  ref: TopicRef,
  body: unknown,
  doing: string,
): Promise<{ created: boolean; document: TopicDocument }> {
  const result = await target.client.PUT(topicRoute(ref), {
    params: { path: ref },
    // Built from the flags (`body.ts`); the API checks it.
    body: body as JsonBody<TopicRoute, 'put'>,
  });
  const document = okData(result, `${doing} ${topicLabel(ref)}`);
  return { created: result.response.status === 201, document };
}

/** The topic's two keys (a namespace topic's are its namespace's). */
export async function topicKeys(target: ApiTarget, ref: TopicRef): Promise<{ key1: string; key2: string }> {
  const result =
    ref.namespace === undefined
      ? await target.client.POST('/admin/topics/{topic}/listKeys', { params: { path: ref } })
      : await target.client.POST('/admin/namespaces/{namespace}/listKeys', {
          params: { path: { namespace: ref.namespace } },
        });
  return okData(result, `reading the keys of ${topicLabel(ref)}`);
}

/** Replaces one of the topic's keys (a namespace topic's are its namespace's); both keys after. */
export async function regenerateTopicKey(
  target: ApiTarget,
  ref: TopicRef,
  keyName: 'key1' | 'key2',
): Promise<{ key1: string; key2: string }> {
  const body = { keyName };
  const result =
    ref.namespace === undefined
      ? await target.client.POST('/admin/topics/{topic}/regenerateKey', { params: { path: ref }, body })
      : await target.client.POST('/admin/namespaces/{namespace}/regenerateKey', {
          params: { path: { namespace: ref.namespace } },
          body,
        });
  return okData(result, `regenerating ${keyName} of ${topicLabel(ref)}`);
}

/** Creates the namespace when it does not exist yet (a namespace topic needs one). */
export async function ensureNamespace(target: ApiTarget, namespace: string): Promise<boolean> {
  const params = { path: { namespace } };
  const found = await target.client.GET('/admin/namespaces/{namespace}', { params });
  if (found.response.status !== 404) {
    okData(found, `reading namespace ${namespace}`);
    return false;
  }
  okData(
    await target.client.PUT('/admin/namespaces/{namespace}', { params, body: { properties: {} } }),
    `creating namespace ${namespace}`,
  );
  return true;
}
