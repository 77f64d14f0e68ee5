/**
 * Topics and event subscriptions declared in a CDK app: what a CloudFormation custom resource asks
 * for (create, update, delete), carried out by the management API's own operations, so a declared
 * resource is validated, created, changed and deleted exactly as one made through the API
 * (quotas, the endpoint's address checks, the validation handshake, a delete that takes the
 * topic's subscriptions with it). Access keys never pass through here: a declared topic's keys
 * are read with the CLI or the API's `listKeys`, never put in a template.
 *
 * A resource's properties name it (`Kind`, `Topic`, `Namespace`, `Subscription`, `EventType`) and carry its
 * definition as the API's request body, as JSON text (`Body`): CloudFormation hands every other
 * property value over as a string, and the body's numbers and booleans must stay what they are.
 *
 * A subscription whose endpoint must agree first (a webhook's validation handshake) is, by
 * default (`Validation: 'async'`), reported created as soon as it is stored: the handshake goes
 * on without the deployment, and its outcome shows in the subscription's provisioning state, its
 * health and the `EndpointValidationFailCount` metric (and its alarm). With `Validation: 'wait'`
 * it is reported created only once it has agreed: the provider framework's completion checks
 * (`checkDeclaredResource`) wait for that, up to a time limit, and fail with the endpoint's answer
 * when it does not. Each call is short, so the management function (29 s) serves them all.
 */
import { z } from 'zod';
import type { HttpEvent, HttpResult } from '../http/api-gateway';
import { ApiError } from '../http/errors';
import type { Clock } from '../platform/clock';
import { handleManagement, type ManagementDeps } from './api';

/**
 * How long a deployment waits for a declared subscription's endpoint to agree. A webhook that
 * echoes the validation code agrees within seconds; one validated by hand through its validation
 * URL would keep the deployment waiting, so after this the deployment fails and says how to
 * validate it (or to raise the wait).
 */
export const VALIDATION_WAIT_SECONDS = 120;

/**
 * The longest wait a declaration may ask for: within the provider framework's total timeout
 * (see `infra/declared-resources.ts`), which stays under CloudFormation's hour for a custom
 * resource.
 */
export const MAX_VALIDATION_WAIT_SECONDS = 3_000;

/**
 * How a declared subscription's deployment treats its endpoint's validation handshake: `async`
 * (the default) completes once the subscription is stored, so an endpoint that can't answer yet
 * (not deployed, a placeholder URL, validated by hand) never fails or rolls back the stack;
 * `wait` completes once the endpoint agreed and fails the deployment when it does not.
 */
export const DECLARED_VALIDATION_MODES = ['async', 'wait'] as const;
export type DeclaredValidationMode = (typeof DECLARED_VALIDATION_MODES)[number];
export const DEFAULT_DECLARED_VALIDATION: DeclaredValidationMode = 'async';

/** What a declared resource is. */
export const DECLARED_KINDS = [
  'Topic',
  'Subscription',
  'Namespace',
  'NamespaceTopic',
  'NamespaceSubscription',
  'EventType',
  'NamespaceEventType',
  'DeclaredDestinations',
] as const;
export type DeclaredKind = (typeof DECLARED_KINDS)[number];

/**
 * The list of AWS resources and roles the app's declared subscriptions deliver to: one resource
 * per pipeline, kept in the table (`storage/declared-destinations.ts`), where the management API
 * allows them beside the deployer's `resourceDestinations` patterns. Not an API resource.
 */
const DESTINATIONS_KIND = 'DeclaredDestinations';
const DESTINATIONS_ID = 'settings/declared-destinations';
const destinationsBodySchema = z.object({ resources: z.array(z.string().min(1)) });

/** The properties of a declared resource, as CloudFormation hands them over (strings). */
export const declaredPropertiesSchema = z.object({
  Kind: z.enum(DECLARED_KINDS),
  Namespace: z.string().min(1).optional(),
  Topic: z.string().min(1).optional(),
  Subscription: z.string().min(1).optional(),
  /** An event type of a topic's catalog (`EventType`, `NamespaceEventType`). */
  EventType: z.string().min(1).optional(),
  /** The API's request body for the resource, as JSON text. */
  Body: z.string().default('{}'),
  /**
   * A Secrets Manager secret holding a subscription's OAuth 2.0 client secret: read when the
   * resource is put and set in the body's `auth` (a template can't carry a secret to a custom
   * resource: CloudFormation resolves no secret reference there).
   */
  ClientSecretArn: z.string().min(1).optional(),
  /** A Secrets Manager secret holding a subscription's client certificate key: read when put, set in `tls.clientKey`. */
  ClientKeySecretArn: z.string().min(1).optional(),
  /**
   * Whether the deployment waits for a subscription's endpoint to agree (default
   * {@link DEFAULT_DECLARED_VALIDATION}). Resources declared before this property existed carry
   * only `ValidationWaitSeconds`, and waited: they still do.
   */
  Validation: z.enum(DECLARED_VALIDATION_MODES).optional(),
  /** Seconds to wait for a subscription's endpoint to agree, with `Validation: 'wait'` (default {@link VALIDATION_WAIT_SECONDS}). */
  ValidationWaitSeconds: z.coerce.number().int().min(0).max(MAX_VALIDATION_WAIT_SECONDS).optional(),
});
export type DeclaredProperties = z.infer<typeof declaredPropertiesSchema>;

/** A custom resource request, as the provider framework passes it to its event handler. */
export interface DeclaredResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceProperties: Record<string, unknown>;
  readonly OldResourceProperties?: Record<string, unknown>;
  readonly PhysicalResourceId?: string;
}

/** What the handler answers: the resource's id (its API path), and attributes a template may read. */
export interface DeclaredResourceResult {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

/** Each kind's route; its parameters are the properties of the same names, and all are required. */
const DECLARED_ROUTES: Readonly<Record<Exclude<DeclaredKind, typeof DESTINATIONS_KIND>, string>> = {
  Topic: '/admin/topics/{topic}',
  Subscription: '/admin/topics/{topic}/eventSubscriptions/{subscription}',
  Namespace: '/admin/namespaces/{namespace}',
  NamespaceTopic: '/admin/namespaces/{namespace}/topics/{topic}',
  NamespaceSubscription: '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}',
  EventType: '/admin/topics/{topic}/eventTypes/{eventType}',
  NamespaceEventType: '/admin/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}',
};

/** The API path of a declared resource (its physical id: the route filled in) and its route's parameters. */
function pathOf(properties: DeclaredProperties): {
  path: string;
  route: string;
  params: Record<string, string>;
} {
  if (properties.Kind === DESTINATIONS_KIND)
    throw new Error(`A ${DESTINATIONS_KIND} resource has no API path.`);
  const route = DECLARED_ROUTES[properties.Kind];
  const params: Record<string, string> = {};
  const path = route.replace(
    /\{(\w+)\}/g,
    (_, param: 'namespace' | 'topic' | 'subscription' | 'eventType') => {
      const field = `${param[0]?.toUpperCase()}${param.slice(1)}` as
        | 'Namespace'
        | 'Topic'
        | 'Subscription'
        | 'EventType';
      const value = properties[field];
      if (value === undefined) throw new Error(`A declared ${properties.Kind} needs the property ${field}.`);
      params[param] = value;
      return encodeURIComponent(value);
    },
  );
  return { path, route, params };
}

/** The management operation for `method` on the resource, called as the API would call it. */
function requestOf(
  method: 'PUT' | 'GET' | 'DELETE',
  target: ReturnType<typeof pathOf>,
  body?: string,
): HttpEvent {
  return {
    version: '2.0',
    routeKey: `${method} ${target.route}`,
    rawPath: target.path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    pathParameters: Object.fromEntries(
      Object.entries(target.params).map(([name, value]) => [name, encodeURIComponent(value)]),
    ),
    isBase64Encoded: false,
    ...(body === undefined ? {} : { body }),
    requestContext: {
      accountId: '',
      apiId: 'declared-resources',
      domainName: '',
      domainPrefix: '',
      requestId: '',
      routeKey: `${method} ${target.route}`,
      stage: '$default',
      time: '',
      timeEpoch: 0,
      http: { method, path: target.path, protocol: 'HTTP/1.1', sourceIp: '', userAgent: 'gridwire-declared' },
    },
  } as HttpEvent;
}

/** The answer's JSON body, or the API's refusal as an error naming its code and status. */
async function call(deps: ManagementDeps, event: HttpEvent): Promise<Record<string, unknown>> {
  let result: HttpResult;
  try {
    result = await handleManagement(event, deps);
  } catch (error) {
    if (error instanceof ApiError) {
      throw new Error(`${event.routeKey} answered ${error.statusCode} ${error.code}: ${error.message}`);
    }
    throw error;
  }
  return result.body === undefined || result.body === ''
    ? {}
    : (JSON.parse(result.body) as Record<string, unknown>);
}

const isNotFound = (error: unknown): boolean =>
  error instanceof Error && / answered 404 /.test(error.message);

export interface DeclaredResourcesDeps {
  readonly management: ManagementDeps;
  readonly clock: Pick<Clock, 'now'>;
  /** Reads a secret's text by its ARN (Secrets Manager): a subscription's `ClientSecretArn`. */
  readonly readSecret: (arn: string) => Promise<string>;
}

/**
 * The body with the secrets the template can't carry read and set: the OAuth 2.0 client secret
 * from `ClientSecretArn` in its endpoint auth, the client certificate's key from
 * `ClientKeySecretArn` in its TLS settings.
 */
async function bodyWithSecrets(properties: DeclaredProperties, deps: DeclaredResourcesDeps): Promise<string> {
  const { ClientSecretArn: secretArn, ClientKeySecretArn: keyArn } = properties;
  if (secretArn === undefined && keyArn === undefined) return properties.Body;
  const body = JSON.parse(properties.Body) as { properties?: Record<string, unknown> };
  const destination = (
    properties.Kind === 'NamespaceSubscription'
      ? ((body.properties?.deliveryConfiguration as Record<string, unknown> | undefined)?.push as
          | Record<string, unknown>
          | undefined)
      : body.properties
  )?.destination as
    | { properties?: { auth?: Record<string, unknown>; tls?: Record<string, unknown> } }
    | undefined;
  if (secretArn !== undefined) {
    const auth = destination?.properties?.auth;
    if (auth?.type !== 'OAuth2ClientCredentials') {
      throw new Error('ClientSecretArn is given but the subscription has no OAuth2ClientCredentials auth.');
    }
    auth.clientSecret = await deps.readSecret(secretArn);
  }
  if (keyArn !== undefined) {
    const tls = destination?.properties?.tls;
    if (tls?.clientCertificate === undefined) {
      throw new Error(
        'ClientKeySecretArn is given but the subscription has no client certificate (tls.clientCertificate).',
      );
    }
    tls.clientKey = await deps.readSecret(keyArn);
  }
  return JSON.stringify(body);
}

/**
 * Keeps the list of the declared destinations in the table: put on create and update, forgotten
 * on delete (of the list itself, not of an older physical id: CloudFormation deletes those after
 * an update that replaced it, and the list it just put must stay).
 */
async function applyDeclaredDestinations(
  event: DeclaredResourceEvent,
  deps: DeclaredResourcesDeps,
): Promise<DeclaredResourceResult> {
  const store = deps.management.declaredDestinations;
  if (event.RequestType === 'Delete') {
    if (event.PhysicalResourceId === DESTINATIONS_ID) await store.clear();
    return { PhysicalResourceId: event.PhysicalResourceId ?? DESTINATIONS_ID };
  }
  const parsed = destinationsBodySchema.safeParse(JSON.parse(String(event.ResourceProperties.Body ?? '{}')));
  if (!parsed.success) throw new Error(`The declared destinations are not valid: ${parsed.error.message}`);
  await store.put(parsed.data.resources);
  return { PhysicalResourceId: DESTINATIONS_ID, Data: { Count: String(parsed.data.resources.length) } };
}

/**
 * Whether the deployment waits for the subscription's endpoint: as `Validation` says; a resource
 * that names only a wait (declared before `Validation` existed) waits, as it always did.
 */
const validationModeOf = (properties: DeclaredProperties): DeclaredValidationMode =>
  properties.Validation ??
  (properties.ValidationWaitSeconds === undefined ? DEFAULT_DECLARED_VALIDATION : 'wait');

/**
 * A provider framework's "is it complete?" call: the request as it came, with what the event
 * handler answered (`Data` is how the two are told apart: the first call never has it).
 */
export interface DeclaredResourceCheck extends DeclaredResourceEvent {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

/** Whether a call is the framework's completion check rather than the request itself. */
export const isCompletionCheck = (event: DeclaredResourceEvent): event is DeclaredResourceCheck =>
  'Data' in event;

/** What a completion check answers. */
export interface DeclaredResourceCompletion {
  readonly IsComplete: boolean;
  readonly Data?: Record<string, string>;
}

function propertiesOf(event: DeclaredResourceEvent): DeclaredProperties {
  const parsed = declaredPropertiesSchema.safeParse(event.ResourceProperties);
  if (!parsed.success)
    throw new Error(`The declared resource's properties are not valid: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Carries out one custom resource request. Create and Update put the resource (an update that
 * renames it creates the new one: CloudFormation then deletes the old one by its id); Delete
 * deletes it, and one already gone is deleted. Rejects with the API's reason when it refuses. A
 * subscription's answer says until when its endpoint may take to agree (`AgreeBy`), which the
 * completion checks then wait for.
 */
export async function applyDeclaredResource(
  event: DeclaredResourceEvent,
  deps: DeclaredResourcesDeps,
): Promise<DeclaredResourceResult> {
  if (event.ResourceProperties.Kind === DESTINATIONS_KIND) return applyDeclaredDestinations(event, deps);
  if (event.RequestType === 'Delete') {
    const parsed = declaredPropertiesSchema.safeParse(event.ResourceProperties);
    // Nothing this handler could have made: there is nothing to delete.
    if (!parsed.success) return { PhysicalResourceId: event.PhysicalResourceId ?? 'invalid' };
    const target = pathOf(parsed.data);
    try {
      await call(deps.management, requestOf('DELETE', target));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return { PhysicalResourceId: event.PhysicalResourceId ?? target.path, Data: { Path: target.path } };
  }
  const properties = propertiesOf(event);
  const target = pathOf(properties);
  const document = await call(
    deps.management,
    requestOf('PUT', target, await bodyWithSecrets(properties, deps)),
  );
  const data: Record<string, string> = { Path: target.path };
  if (typeof document.id === 'string') data.Id = document.id;
  const isSubscription = properties.Kind === 'Subscription' || properties.Kind === 'NamespaceSubscription';
  if (isSubscription && validationModeOf(properties) === 'async') {
    const state = (document.properties as { provisioningState?: unknown } | undefined)?.provisioningState;
    if (typeof state === 'string') data.ProvisioningState = state;
  } else if (isSubscription) {
    const waitMs = (properties.ValidationWaitSeconds ?? VALIDATION_WAIT_SECONDS) * 1000;
    data.AgreeBy = new Date(deps.clock.now() + waitMs).toISOString();
  }
  return { PhysicalResourceId: target.path, Data: data };
}

/**
 * The completion check: complete at once for a delete, a topic or a namespace; for a
 * subscription, once its endpoint agreed. Rejects with the endpoint's handshake error when the
 * validation failed, or when `AgreeBy` passed without its agreement.
 */
export async function checkDeclaredResource(
  event: DeclaredResourceCheck,
  deps: DeclaredResourcesDeps,
): Promise<DeclaredResourceCompletion> {
  const agreeBy = event.Data?.AgreeBy;
  if (event.RequestType === 'Delete' || agreeBy === undefined) return { IsComplete: true };
  const target = pathOf(propertiesOf(event));
  const document = await call(deps.management, requestOf('GET', target));
  const properties = (document.properties ?? {}) as {
    provisioningState?: string;
    endpointValidation?: { handshakeError?: string };
  };
  const state = properties.provisioningState ?? 'Succeeded';
  if (state === 'Succeeded') return { IsComplete: true, Data: { ...event.Data, ProvisioningState: state } };
  if (state === 'Failed' || deps.clock.now() >= Date.parse(agreeBy)) {
    const reason = properties.endpointValidation?.handshakeError;
    throw new Error(
      `The endpoint of ${target.path} has not agreed to receive events (${state}${reason === undefined ? '' : `: ${reason}`}). ` +
        'It must answer the validation handshake (echo the validation code, or open the validation URL it was sent) ' +
        `by ${agreeBy}; raise ValidationWaitSeconds (at most ${MAX_VALIDATION_WAIT_SECONDS}) to wait longer.`,
    );
  }
  return { IsComplete: false };
}
