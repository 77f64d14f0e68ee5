/**
 * The routes classic topics and namespaces share: both hold two access keys, are created with
 * fresh ones (or found already there, and then retagged), listed, shown, deleted with everything
 * under them, and have their keys listed and regenerated. Only the names, the request body, the
 * document and the checks a topic makes on an existing one differ.
 */
import { emptyResult, type HttpEvent, jsonResult } from '../http/api-gateway';
import { notFound } from '../http/errors';
import type { Described, KeyedResource, KeyedResourceStore } from '../storage/keyed-resources';
import type { ClockDeps, PropagationDeps } from './deps';
import { optionalBody } from './http-helpers';
import { keyNameOf, keysOf } from './keys';
import type { Operations } from './operation';
import { now, propagated } from './timing';

/**
 * What a keyed resource's routes use: the time changes carry and the wait for publishers, beside
 * what the resource's store and document take (`D`).
 */
export type KeyedResourceRouteDeps = ClockDeps & PropagationDeps;

/** A kind of keyed resource: its names and paths, its store and document from `D`, its checks. */
export interface KeyedResourceApi<R extends KeyedResource, Input, D> {
  /** `topic` or `namespace`, as messages name it. */
  label: string;
  /** The collection's path (`/admin/topics`); a resource's is `<path>/{<label>}`. */
  path: string;
  /** The resource's name from the request's path, checked. */
  nameOf: (event: HttpEvent) => string;
  store: (deps: D) => KeyedResourceStore<R, Input>;
  /** The request body of a `PUT`, parsed. */
  parseBody: (body: unknown) => Input;
  /** Refuses a `PUT` whose body does not suit the resource's name (before anything is written). */
  checkInput?: (name: string, input: Input) => void;
  /** Refuses a `PUT` that would change what can't be changed on an existing resource. */
  checkExisting?: (existing: R, input: Input) => void;
  document: (resource: Described<R>, deps: D) => unknown;
}

/**
 * The resource, read strongly consistently (one created by a call that has returned is always
 * found); 404 when there is none.
 */
export async function requireResource<R extends KeyedResource, Input, D>(
  api: KeyedResourceApi<R, Input, D>,
  deps: D,
  name: string,
): Promise<R> {
  const resource = await api.store(deps).get(name, { consistent: true });
  if (resource === undefined) throw notFound(`The ${api.label} '${name}' does not exist.`);
  return resource;
}

/** The collection and resource routes, and `listKeys` and `regenerateKey`. */
export function keyedResourceOperations<
  R extends KeyedResource,
  Input extends { tags: Record<string, string> },
  D,
>(api: KeyedResourceApi<R, Input, D>): Operations<D & KeyedResourceRouteDeps> {
  const resourcePath = `${api.path}/{${api.label}}`;
  return {
    [`GET ${api.path}`]: async (_event, deps) => {
      const resources = await api.store(deps).list();
      return jsonResult(200, { value: resources.map((resource) => api.document(resource, deps)) });
    },

    [`PUT ${resourcePath}`]: async (event, deps) => {
      const name = api.nameOf(event);
      const input = api.parseBody(optionalBody(event));
      api.checkInput?.(name, input);
      const store = api.store(deps);
      const { resource, created } = await store.create(name, input, now(deps));
      if (!created) api.checkExisting?.(resource, input);
      const current = created ? resource : ((await store.update(name, input, now(deps))) ?? resource);
      // Publishers may have cached "no such resource"; answer once they have let it go.
      if (created) await propagated(deps);
      return jsonResult(created ? 201 : 200, api.document(current, deps));
    },

    [`GET ${resourcePath}`]: async (event, deps) =>
      jsonResult(200, api.document(await requireResource(api, deps, api.nameOf(event)), deps)),

    [`DELETE ${resourcePath}`]: async (event, deps) => {
      const deleted = await api.store(deps).delete(api.nameOf(event));
      // Publishers may hold it in their cache; answer once they have let it go.
      if (deleted) await propagated(deps);
      return emptyResult(deleted ? 200 : 204);
    },

    [`POST ${resourcePath}/listKeys`]: async (event, deps) =>
      jsonResult(200, keysOf((await requireResource(api, deps, api.nameOf(event))).keys)),

    [`POST ${resourcePath}/regenerateKey`]: async (event, deps) => {
      const name = api.nameOf(event);
      const keyName = keyNameOf(event);
      const resource = await api.store(deps).regenerateKey(name, keyName, now(deps));
      if (resource === undefined) throw notFound(`The ${api.label} '${name}' does not exist.`);
      await propagated(deps);
      return jsonResult(200, keysOf(resource.keys));
    },
  };
}
