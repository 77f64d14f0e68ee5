/**
 * Publish authentication: the credential a publish request carries, and its check against the
 * keys of the topic or namespace it publishes to.
 *
 * A classic topic takes one of its keys (the `aeg-sas-key` header or query value), a shared access
 * signature made with one (the `aeg-sas-token` header or `Authorization: SharedAccessSignature
 * <token>`, checked by `sas.ts`) or, on the IAM route, the caller the gateway let in. A namespace
 * topic takes one of its namespace's keys (`Authorization: SharedAccessKey <key>`). A refusal is a
 * 401 naming what is wrong, the same whether the topic (or namespace) does not exist or the
 * credential is wrong for it, so names can't be found out by trying them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ROUTES } from '../config/routes';
import type { Namespace, Topic } from '../domain/model';
import { type HttpEvent, header } from '../http/api-gateway';
import { badRequest, unauthorized } from '../http/errors';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import type { NamespacePublishRequest, PublishCredential, PublishRequest } from './publish-request';
import { verifySasToken } from './sas';

const SAS_AUTHORIZATION = /^SharedAccessSignature\s+(.+)$/i;
const SHARED_ACCESS_KEY = /^SharedAccessKey\s+(.+)$/i;

/** Route keys (`POST /iam/topics/{topic}/api/events`) of the publish routes the gateway authorizes by IAM. */
const IAM_ROUTE_KEYS: ReadonlySet<string> = new Set(
  ROUTES.filter((route) => route.function === 'publish' && route.auth === 'iam').map(
    (route) => `${route.method} ${route.path}`,
  ),
);

/**
 * The publisher's credential. On an IAM route: the caller the gateway let in (its ARN on AWS,
 * `local` in the local stack), whatever key headers the request carries. Otherwise a key
 * (`aeg-sas-key` header or query) or a SAS token.
 */
export function credentialOf(event: HttpEvent): PublishCredential | undefined {
  if (IAM_ROUTE_KEYS.has(event.routeKey)) {
    return { kind: 'iam', caller: event.requestContext?.authorizer?.iam?.userArn ?? 'local' };
  }
  const key = header(event, 'aeg-sas-key') ?? event.queryStringParameters?.['aeg-sas-key'];
  if (key !== undefined) return { kind: 'key', key };
  const token =
    header(event, 'aeg-sas-token') ?? SAS_AUTHORIZATION.exec(header(event, 'authorization') ?? '')?.[1];
  return token === undefined ? undefined : { kind: 'sas', token };
}

/** The namespace key a namespace publish carries (`Authorization: SharedAccessKey <key>`), trimmed. */
export const namespaceKeyOf = (event: HttpEvent): string | undefined =>
  SHARED_ACCESS_KEY.exec(header(event, 'authorization') ?? '')?.[1]?.trim();

/** Keys no one holds: an unknown topic is checked against these, so it fails like a wrong key. */
const NOBODYS_KEYS: Pick<Topic, 'keys'> = {
  keys: { key1: randomBytes(32).toString('base64'), key2: randomBytes(32).toString('base64') },
};

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Compares a presented key with the topic's keys in constant time. */
export function isValidKey(topic: Pick<Topic, 'keys'>, presented: string): boolean {
  const presentedDigest = digest(presented);
  // Both comparisons always run, so timing does not tell which key matched.
  const one = timingSafeEqual(presentedDigest, digest(topic.keys.key1));
  const two = timingSafeEqual(presentedDigest, digest(topic.keys.key2));
  return one || two;
}

/** What checking a classic topic's credential uses: the time (a SAS token's expiry) and the log. */
export interface TopicAuthentication {
  clock: Pick<Clock, 'now'>;
  logger: LoggerLike;
}

/**
 * Checks the credential of a publish to `topic`: throws 401 naming what is wrong with it. An IAM
 * caller was let in by the gateway; its path must then name the topic exactly as created.
 */
export function authenticateTopicPublish(
  topic: Pick<Topic, 'keys'>,
  request: Pick<PublishRequest, 'topic' | 'credential' | 'path'>,
  { clock, logger }: TopicAuthentication,
): void {
  const { credential } = request;
  if (credential?.kind === 'iam') {
    // IAM matches the path as written; a name spelled another way (case, percent-encoding) could
    // slip past a Deny written for the topic, so only the exact spelling is taken here.
    const exact = `/iam/topics/${(topic as Topic).name}/api/events`;
    if (request.path !== exact) {
      throw badRequest(
        `On the IAM route the path must name the topic exactly as it was created: ${exact} (IAM policies match the path as written).`,
        'TopicNameNotExact',
      );
    }
    logger.debug('publish authorized by the gateway (IAM)', {
      topic: request.topic,
      caller: credential.caller,
    });
    return;
  }
  if (credential === undefined || (credential.kind === 'key' ? credential.key : credential.token) === '') {
    throw unauthorized(
      'The request has no access key: send the aeg-sas-key header (or the aeg-sas-key query parameter) with key1 or key2 of the topic, or a SAS token in the aeg-sas-token header (or Authorization: SharedAccessSignature <token>).',
    );
  }
  if (credential.kind === 'key') {
    if (!isValidKey(topic, credential.key)) {
      throw unauthorized(`The access key is not valid for topic '${request.topic}'.`);
    }
    return;
  }
  const verdict = verifySasToken(credential.token, topic.keys, request.path, clock.now());
  if (!verdict.valid) throw unauthorized(verdict.reason);
}

/**
 * Refuses a key or SAS publish to a topic that does not exist as one with a wrong credential is
 * refused: the credential is checked against keys nobody holds, and the answer is the same 401.
 */
export function refuseUnknownTopic(
  request: Pick<PublishRequest, 'topic' | 'credential' | 'path'>,
  authentication: TopicAuthentication,
): never {
  authenticateTopicPublish(NOBODYS_KEYS, request, authentication);
  throw unauthorized(`The access key is not valid for topic '${request.topic}'.`);
}

/** The key of a namespace publish, or the 401 saying it has none (checked before any read). */
export function requireNamespaceKey(request: Pick<NamespacePublishRequest, 'key'>): string {
  if (request.key === undefined || request.key === '') {
    throw unauthorized(
      'The request has no access key: send Authorization: SharedAccessKey <key> with key1 or key2 of the namespace.',
    );
  }
  return request.key;
}

/**
 * The namespace a publish goes to, once `key` is found to be one of its keys. An unknown
 * namespace (`undefined`) and a wrong key get the same 401.
 */
export function authenticateNamespacePublish<N extends Pick<Namespace, 'keys'>>(
  namespace: N | undefined,
  key: string,
  name: string,
): N {
  if (!isValidKey(namespace ?? NOBODYS_KEYS, key)) {
    throw unauthorized(`The access key is not valid for namespace '${name}'.`);
  }
  return namespace as N;
}
