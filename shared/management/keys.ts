/** The access keys of topics and namespaces as the key routes show and name them. */
import type { TopicKeys } from '../domain/model';
import type { HttpEvent } from '../http/api-gateway';
import { badRequest } from '../http/errors';
import { optionalBody } from './http-helpers';

/** The keys as `listKeys` and `regenerateKey` answer them. */
export const keysOf = (keys: TopicKeys) => ({ key1: keys.key1, key2: keys.key2 });

/** The key a `regenerateKey` request names (`{"keyName": "key1" | "key2"}`). */
export function keyNameOf(event: HttpEvent): keyof TopicKeys {
  const body = optionalBody(event) as { keyName?: unknown };
  if (body === null || typeof body !== 'object' || (body.keyName !== 'key1' && body.keyName !== 'key2')) {
    throw badRequest("keyName: must be 'key1' or 'key2'.");
  }
  return body.keyName;
}
