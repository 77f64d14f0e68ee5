/**
 * The routes topics and namespaces share, built from a small API description: create (or find and
 * retag), show, list, delete, and the key routes; answers that publishers must see wait for their
 * cached copies to expire.
 */
import type { Namespace } from '../../../shared/domain/model';
import { type HttpEvent, pathParam } from '../../../shared/http/api-gateway';
import { ApiError, badRequest } from '../../../shared/http/errors';
import type { TopicStoreDeps } from '../../../shared/management/deps';
import {
  type KeyedResourceApi,
  type KeyedResourceRouteDeps,
  keyedResourceOperations,
  requireResource,
} from '../../../shared/management/keyed-resource-routes';
import type { NamespaceInput } from '../../../shared/storage/namespaces';
import { VirtualClock } from '../../support/fakes';
import { memoryStores } from '../../support/memory-stores';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const PROPAGATION_MS = 1000;
const ROUTE = '/admin/namespaces/{namespace}';

function setup() {
  const clock = new VirtualClock(NOW);
  const stores = memoryStores();
  const deps: TopicStoreDeps & KeyedResourceRouteDeps = {
    topics: stores.topics,
    namespaces: stores.namespaces,
    namespaceTopics: stores.namespaceTopics,
    clock,
    propagationDelayMs: PROPAGATION_MS,
  };
  const existingChecks: Array<[string, NamespaceInput]> = [];
  const api: KeyedResourceApi<Namespace, NamespaceInput, TopicStoreDeps> = {
    label: 'namespace',
    path: '/admin/namespaces',
    nameOf: (event) => pathParam(event, 'namespace'),
    store: (given) => given.namespaces,
    parseBody: (body) => ({ tags: (body as { tags?: Record<string, string> }).tags ?? {} }),
    checkExisting: (existing, input) => {
      existingChecks.push([existing.name, input]);
      if (input.tags.frozen !== undefined)
        throw badRequest('tags.frozen: cannot be set on an existing namespace.');
    },
    // Whether the store handed the keys over: listings and retags must not.
    document: (resource) => ({ name: resource.name, tags: resource.tags, showsKeys: 'keys' in resource }),
  };
  const operations = keyedResourceOperations(api);
  const call = async (method: string, path: string, name?: string, body?: unknown) => {
    const operation = operations[`${method} ${path}`];
    if (operation === undefined) throw new Error(`no route ${method} ${path}`);
    const answer = await operation(
      {
        routeKey: `${method} ${path}`,
        ...(name === undefined ? {} : { pathParameters: { namespace: name } }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      } as HttpEvent,
      deps,
    );
    return { statusCode: answer.statusCode, body: answer.body ? JSON.parse(answer.body) : undefined };
  };
  return { clock, stores, deps, api, existingChecks, call };
}

const refusal = async (answer: Promise<unknown>) => {
  const error = await answer.catch((caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw error;
  return error;
};

describe('keyed-resource routes', () => {
  it('has the collection, resource and key routes under the path', () => {
    const { api } = setup();
    expect(Object.keys(keyedResourceOperations(api)).sort()).toEqual([
      'DELETE /admin/namespaces/{namespace}',
      'GET /admin/namespaces',
      'GET /admin/namespaces/{namespace}',
      'POST /admin/namespaces/{namespace}/listKeys',
      'POST /admin/namespaces/{namespace}/regenerateKey',
      'PUT /admin/namespaces/{namespace}',
    ]);
  });

  it('creates a resource with fresh keys (201), answered once publishers can see it', async () => {
    const { call, clock, stores } = setup();

    const answer = await call('PUT', ROUTE, 'shop', { tags: { team: 'a' } });

    expect(answer).toEqual({ statusCode: 201, body: { name: 'shop', tags: { team: 'a' }, showsKeys: true } });
    expect(clock.now()).toBe(NOW + PROPAGATION_MS);
    const stored = await stores.namespaces.get('shop');
    expect(stored?.keys.key1).not.toBe(stored?.keys.key2);
  });

  it('finds an existing resource on PUT (200), checks it, and retags it without waiting', async () => {
    const { call, clock, stores, existingChecks } = setup();
    await call('PUT', ROUTE, 'shop', { tags: { team: 'a' } });
    const keys = (await stores.namespaces.get('shop'))?.keys;
    const before = clock.now();

    const answer = await call('PUT', ROUTE, 'SHOP', { tags: { team: 'b' } });

    expect(answer).toEqual({
      statusCode: 200,
      body: { name: 'shop', tags: { team: 'b' }, showsKeys: false },
    });
    expect(existingChecks).toEqual([['shop', { tags: { team: 'b' } }]]);
    expect((await stores.namespaces.get('shop'))?.keys).toEqual(keys);
    expect(clock.now()).toBe(before);
  });

  it('refuses a PUT its check refuses, and leaves the resource as it was', async () => {
    const { call, stores } = setup();
    await call('PUT', ROUTE, 'shop', { tags: { team: 'a' } });

    const error = await refusal(call('PUT', ROUTE, 'shop', { tags: { frozen: 'yes' } }));

    expect(error.statusCode).toBe(400);
    expect((await stores.namespaces.get('shop'))?.tags).toEqual({ team: 'a' });
  });

  it('shows and lists resources, and answers 404 for one that does not exist', async () => {
    const { call, api, deps } = setup();
    await call('PUT', ROUTE, 'shop', {});
    await call('PUT', ROUTE, 'bank', {});

    expect((await call('GET', ROUTE, 'shop')).body).toEqual({ name: 'shop', tags: {}, showsKeys: true });
    expect((await call('GET', '/admin/namespaces')).body).toEqual({
      value: [
        { name: 'bank', tags: {}, showsKeys: false },
        { name: 'shop', tags: {}, showsKeys: false },
      ],
    });
    const missing = await refusal(call('GET', ROUTE, 'none'));
    expect([missing.statusCode, missing.message]).toEqual([404, "The namespace 'none' does not exist."]);
    await expect(requireResource(api, deps, 'none')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('lists the keys and regenerates one of them, keeping the other', async () => {
    const { call, clock } = setup();
    await call('PUT', ROUTE, 'shop', {});
    const keys = (await call('POST', `${ROUTE}/listKeys`, 'shop')).body;
    const before = clock.now();

    const regenerated = await call('POST', `${ROUTE}/regenerateKey`, 'shop', { keyName: 'key2' });

    expect(regenerated.body.key1).toBe(keys.key1);
    expect(regenerated.body.key2).not.toBe(keys.key2);
    expect((await call('POST', `${ROUTE}/listKeys`, 'shop')).body).toEqual(regenerated.body);
    expect(clock.now()).toBe(before + PROPAGATION_MS);
    expect((await refusal(call('POST', `${ROUTE}/regenerateKey`, 'shop', { keyName: 'key3' }))).message).toBe(
      "keyName: must be 'key1' or 'key2'.",
    );
    expect(
      (await refusal(call('POST', `${ROUTE}/regenerateKey`, 'none', { keyName: 'key1' }))).statusCode,
    ).toBe(404);
    expect((await refusal(call('POST', `${ROUTE}/listKeys`, 'none'))).statusCode).toBe(404);
  });

  it('deletes a resource (200, once publishers let it go), and answers 204 when there is none', async () => {
    const { call, clock, stores } = setup();
    await call('PUT', ROUTE, 'shop', {});
    const before = clock.now();

    expect((await call('DELETE', ROUTE, 'shop')).statusCode).toBe(200);
    expect(clock.now()).toBe(before + PROPAGATION_MS);
    expect(await stores.namespaces.get('shop')).toBeUndefined();
    expect((await call('DELETE', ROUTE, 'shop')).statusCode).toBe(204);
    expect(clock.now()).toBe(before + PROPAGATION_MS);
  });
});
