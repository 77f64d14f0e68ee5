/**
 * The topic routes of the management API as `gridwire topic` (and `publish`) call them: a
 * topic's document (read, and put), the URL its events are published to, its keys (a namespace topic's are its
 * namespace's), and a namespace made when a namespace topic needs one.
 */
import { type ApiTarget, callOk, okText, type TopicRef, topicAdminPath, topicLabel } from '../admin-api';
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
  };
}

/** Where the topic's keys are: the topic's own, or its namespace's. */
export const keysOwnerPath = (ref: TopicRef): string =>
  ref.namespace === undefined
    ? topicAdminPath(ref)
    : `/admin/namespaces/${encodeURIComponent(ref.namespace)}`;

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
  const answer = await target.call('GET', topicAdminPath(ref));
  if (answer.status === 404) return undefined;
  return JSON.parse(okText(answer, `reading ${topicLabel(ref)}`)) as TopicDocument;
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
  const answer = await target.call('PUT', topicAdminPath(ref), JSON.stringify(body));
  const document = JSON.parse(okText(answer, `${doing} ${topicLabel(ref)}`)) as TopicDocument;
  return { created: answer.status === 201, document };
}

/** The topic's two keys (a namespace topic's are its namespace's). */
export async function topicKeys(target: ApiTarget, ref: TopicRef): Promise<{ key1: string; key2: string }> {
  const text = await callOk(
    target,
    'POST',
    `${keysOwnerPath(ref)}/listKeys`,
    undefined,
    `reading the keys of ${topicLabel(ref)}`,
  );
  return JSON.parse(text) as { key1: string; key2: string };
}

/** Creates the namespace when it does not exist yet (a namespace topic needs one). */
export async function ensureNamespace(target: ApiTarget, namespace: string): Promise<boolean> {
  const path = `/admin/namespaces/${encodeURIComponent(namespace)}`;
  const found = await target.call('GET', path);
  if (found.status !== 404) {
    okText(found, `reading namespace ${namespace}`);
    return false;
  }
  await callOk(target, 'PUT', path, { properties: {} }, `creating namespace ${namespace}`);
  return true;
}
