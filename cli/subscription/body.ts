/**
 * The subscription bodies the command line sends, made from Azure CLI-shaped flags: the classic
 * ARM body (`properties.destination`, `filter`, `retryPolicy`, ...) or, with `--namespace`, the
 * namespace push body (`properties.deliveryConfiguration.push`, `filtersConfiguration`). Pure:
 * the API checks every value and answers a 400 naming the field; what is checked here is only
 * what the words of a flag must look like before they can become a field.
 *
 * `update` starts from the subscription as the API shows it ({@link classicBodyOf},
 * {@link namespaceBodyOf}) and applies the flags given over it.
 */
import { InvalidArgumentError } from 'commander';
import {
  ADVANCED_FILTER_OPERATORS,
  type AdvancedFilter,
  DELIVERY_LOG_MODES,
  EVENT_DELIVERY_SCHEMAS,
  INPUT_SCHEMAS,
  isOrderedKeyPath,
  ORDERED_KEY_RULE,
} from '../../shared/domain/model';
import { optionWords } from '../words';
import { deadLetterDestinationOf } from './dead-letter-flags';
import { destinationOf, isResource } from './destination-flags';
import type { DeliveryAttributeMappingBody, SubscriptionFlags } from './flags';

type Json = Record<string, unknown>;

/** `value` matched, ignoring case, against `names`: the name as the API spells it. */
function oneOf(flag: string, names: readonly string[], value: string): string {
  const found = names.find((name) => name.toLowerCase() === value.toLowerCase());
  if (found === undefined) throw new InvalidArgumentError(`${flag} must be one of ${names.join(', ')}.`);
  return found;
}

/** `--event-delivery-schema`: any case, as the Azure CLI takes `eventgridschema`. */
export const deliverySchemaArgument = (value: string) =>
  oneOf('--event-delivery-schema', EVENT_DELIVERY_SCHEMAS, value);

/** `--delivery-log`: `Failures` or `All`, any case. */
export const deliveryLogArgument = (value: string) => oneOf('--delivery-log', DELIVERY_LOG_MODES, value);

/** `--ordered-by`: `subject`, or a dotted path into the event as delivered, such as `data.orderId`. */
export const orderedByArgument = (value: string): string => {
  if (!isOrderedKeyPath(value)) throw new InvalidArgumentError(`--ordered-by must be ${ORDERED_KEY_RULE}.`);
  return value;
};

/**
 * `orderedDelivery` from `--ordered-by` (`--no-ordered-by`: null, no order), over what `update`
 * read (left out when neither has it).
 */
const orderedDeliveryOf = (flags: SubscriptionFlags, base: unknown): unknown =>
  flags.orderedBy === undefined ? base : flags.orderedBy === false ? null : { key: flags.orderedBy };

/** `--input-schema`: any case; the Azure CLI's `customeventschema` is `CustomEventSchema`. */
export const inputSchemaArgument = (value: string) => oneOf('--input-schema', INPUT_SCHEMAS, value);

const number = (flag: string, word: string): number => {
  const parsed = Number(word);
  if (word.trim() === '' || !Number.isFinite(parsed)) {
    throw new InvalidArgumentError(`${flag}: '${word}' is not a number.`);
  }
  return parsed;
};

const OPERATORS = Object.values(ADVANCED_FILTER_OPERATORS).flat() as string[];
const isIn = (group: readonly string[], operator: string) => group.includes(operator);

/**
 * One `--advanced-filter KEY OPERATOR [VALUE ...]` (the Azure CLI's form): numbers for the number
 * operators, `min,max` pairs for the ranges, `true`/`false` for `BoolEquals`, none for the
 * presence tests, strings otherwise. Repeatable; the filters accumulate.
 */
export function advancedFilterArgument(value: string, previous: AdvancedFilter[] = []): AdvancedFilter[] {
  const flag = '--advanced-filter';
  const [key, operatorWord, ...values] = optionWords(value);
  if (key === undefined || operatorWord === undefined) {
    throw new InvalidArgumentError(
      `${flag} takes KEY OPERATOR [VALUE ...], e.g. data.total NumberGreaterThan 100.`,
    );
  }
  const operatorType = oneOf(`${flag} operator`, OPERATORS, operatorWord);
  const groups = ADVANCED_FILTER_OPERATORS;
  const one = (): string => {
    if (values.length !== 1)
      throw new InvalidArgumentError(`${flag} ${operatorType} takes exactly one value.`);
    return values[0] as string;
  };
  const some = (): string[] => {
    if (values.length === 0)
      throw new InvalidArgumentError(`${flag} ${operatorType} takes one value or more.`);
    return values;
  };
  let filter: Json;
  if (isIn(groups.presence, operatorType)) {
    if (values.length > 0) throw new InvalidArgumentError(`${flag} ${operatorType} takes no value.`);
    filter = { operatorType, key };
  } else if (isIn(groups.numberCompare, operatorType)) {
    filter = { operatorType, key, value: number(flag, one()) };
  } else if (isIn(groups.bool, operatorType)) {
    const word = one().toLowerCase();
    if (word !== 'true' && word !== 'false')
      throw new InvalidArgumentError(`${flag} ${operatorType} takes true or false.`);
    filter = { operatorType, key, value: word === 'true' };
  } else if (isIn(groups.numberSet, operatorType)) {
    filter = { operatorType, key, values: some().map((word) => number(flag, word)) };
  } else if (isIn(groups.numberRange, operatorType)) {
    const ranges = some().map((word) => {
      const ends = word.split(',');
      if (ends.length !== 2)
        throw new InvalidArgumentError(`${flag} ${operatorType} takes MIN,MAX pairs, e.g. 5,10.`);
      return ends.map((end) => number(flag, end));
    });
    filter = { operatorType, key, values: ranges };
  } else {
    filter = { operatorType, key, values: some() };
  }
  return [...previous, filter as unknown as AdvancedFilter];
}

/**
 * One `--delivery-attribute-mapping NAME TYPE VALUE [ISSECRET]` (the Azure CLI's form): `static`
 * sends VALUE as written (ISSECRET `true` keeps it sealed), `dynamic` takes it from the event
 * field VALUE names. Repeatable.
 */
export function deliveryAttributeArgument(
  value: string,
  previous: DeliveryAttributeMappingBody[] = [],
): DeliveryAttributeMappingBody[] {
  const flag = '--delivery-attribute-mapping';
  const words = optionWords(value);
  const [name, typeWord, field, secret] = words;
  if (name === undefined || typeWord === undefined || field === undefined || words.length > 4) {
    throw new InvalidArgumentError(
      `${flag} takes NAME TYPE VALUE [ISSECRET], e.g. X-Source static shop, or X-Tenant dynamic data.tenant.`,
    );
  }
  const type = oneOf(`${flag} type`, ['Static', 'Dynamic'], typeWord);
  if (type === 'Dynamic') {
    if (secret !== undefined) throw new InvalidArgumentError(`${flag}: a dynamic mapping has no ISSECRET.`);
    return [...previous, { name, type, properties: { sourceField: field } }];
  }
  const isSecret =
    secret === undefined ? false : oneOf(`${flag} ISSECRET`, ['true', 'false'], secret) === 'true';
  return [...previous, { name, type: 'Static', properties: { value: field, isSecret } }];
}

/** The part of `flags` that is a filter, as both kinds of subscription take it. */
function filterOf(flags: SubscriptionFlags, base: Json | undefined): Json | undefined {
  const given = {
    ...(flags.includedEventTypes === undefined ? {} : { includedEventTypes: flags.includedEventTypes }),
    ...(flags.subjectBeginsWith === undefined ? {} : { subjectBeginsWith: flags.subjectBeginsWith }),
    ...(flags.subjectEndsWith === undefined ? {} : { subjectEndsWith: flags.subjectEndsWith }),
    ...(flags.subjectCaseSensitive === undefined
      ? {}
      : { isSubjectCaseSensitive: flags.subjectCaseSensitive }),
    ...(flags.advancedFilter === undefined ? {} : { advancedFilters: flags.advancedFilter }),
    ...(flags.enableAdvancedFilteringOnArrays === undefined
      ? {}
      : { enableAdvancedFilteringOnArrays: flags.enableAdvancedFilteringOnArrays }),
  };
  if (base === undefined && Object.keys(given).length === 0) return undefined;
  return { ...base, ...given };
}

/** `disableAfterFailingFor` from the flag (`never`: null), over what `update` read. */
const disableAfterOf = (flags: SubscriptionFlags, base: unknown): unknown =>
  flags.disableAfterFailingFor === undefined
    ? base
    : flags.disableAfterFailingFor.toLowerCase() === 'never'
      ? null
      : flags.disableAfterFailingFor;

const defined = (entries: Json): Json =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

/** A namespace subscription's `deadLetterDestinationWithResourceIdentity`, the flags over `base`. */
function deadLetterIdentityOf(flags: SubscriptionFlags, base: unknown): unknown {
  const kept = (base as Json | null | undefined)?.deadLetterDestination;
  const destination = deadLetterDestinationOf(flags, kept);
  return destination === kept ? base : { ...(base as Json | undefined), deadLetterDestination: destination };
}

/** A classic subscription's body: `base` (an existing one's, for `update`) with the flags over it. */
export function classicSubscriptionBody(flags: SubscriptionFlags, base?: Json): Json {
  const properties = (base?.properties ?? {}) as Json;
  const retry = {
    ...(properties.retryPolicy as Json | undefined),
    ...(flags.maxDeliveryAttempts === undefined ? {} : { maxDeliveryAttempts: flags.maxDeliveryAttempts }),
    ...(flags.eventTtl === undefined ? {} : { eventTimeToLiveInMinutes: flags.eventTtl }),
    ...(flags.retrySchedule === undefined ? {} : { retrySchedule: flags.retrySchedule }),
  };
  return {
    properties: defined({
      ...properties,
      destination: destinationOf(flags, properties.destination as Json | undefined),
      filter: filterOf(flags, properties.filter as Json | undefined),
      retryPolicy: Object.keys(retry).length === 0 ? undefined : retry,
      deadLetterDestination: deadLetterDestinationOf(flags, properties.deadLetterDestination),
      eventDeliverySchema: flags.eventDeliverySchema ?? properties.eventDeliverySchema,
      labels: flags.labels === false ? [] : (flags.labels ?? properties.labels),
      expirationTimeUtc: flags.expirationDate ?? properties.expirationTimeUtc,
      deliveryLog: flags.deliveryLog ?? properties.deliveryLog,
      orderedDelivery: orderedDeliveryOf(flags, properties.orderedDelivery),
      disableAfterFailingFor: disableAfterOf(flags, properties.disableAfterFailingFor),
    }),
  };
}

/** A namespace subscription's push body: `base` (for `update`) with the flags over it. */
export function namespaceSubscriptionBody(flags: SubscriptionFlags, base?: Json): Json {
  const properties = (base?.properties ?? {}) as Json;
  const delivery = (properties.deliveryConfiguration ?? {}) as Json;
  const push = (delivery.push ?? {}) as Json;
  return {
    properties: defined({
      ...properties,
      deliveryConfiguration: {
        deliveryMode: 'Push',
        push: defined({
          ...push,
          maxDeliveryCount: flags.maxDeliveryAttempts ?? push.maxDeliveryCount,
          eventTimeToLive: flags.eventTtl === undefined ? push.eventTimeToLive : `PT${flags.eventTtl}M`,
          retrySchedule: flags.retrySchedule ?? push.retrySchedule,
          destination: destinationOf(flags, push.destination as Json | undefined),
          deadLetterDestinationWithResourceIdentity: deadLetterIdentityOf(
            flags,
            push.deadLetterDestinationWithResourceIdentity,
          ),
        }),
      },
      filtersConfiguration: filterOf(flags, properties.filtersConfiguration as Json | undefined),
      eventDeliverySchema: flags.eventDeliverySchema ?? properties.eventDeliverySchema,
      labels: flags.labels === false ? [] : (flags.labels ?? properties.labels),
      expirationTimeUtc: flags.expirationDate ?? properties.expirationTimeUtc,
      deliveryLog: flags.deliveryLog ?? properties.deliveryLog,
      orderedDelivery: orderedDeliveryOf(flags, properties.orderedDelivery),
      disableAfterFailingFor: disableAfterOf(flags, properties.disableAfterFailingFor),
    }),
  };
}

/** What an existing subscription's document lacks before it can be sent back: the full URLs, secrets. */
export interface DocumentGaps {
  /** The endpoint URL with its query string (from `getFullUrl`); the document shows only its base. */
  endpointUrl: string;
  /**
   * An OAuth 2.0 client's token URL with its query string (from `getFullUrl`), which the document
   * also shows only up to its path: sent back cut, it would be another token URL.
   */
  tokenUrl?: string;
}

/**
 * The destination as sent back: the full endpoint URL instead of `endpointBaseUrl` (and the full
 * token URL of an OAuth 2.0 client), and custom headers as given. A secret header's value is never shown, so it can't be sent back: unless
 * `--delivery-attribute-mapping` gives the headers again, that is an error naming them.
 */
function destinationBodyOf(destination: Json, gaps: DocumentGaps, flags: SubscriptionFlags): Json {
  const {
    endpointBaseUrl: _base,
    deliveryAttributeMappings,
    signing,
    auth,
    ...rest
  } = (destination.properties ?? {}) as Json;
  const mappings = (deliveryAttributeMappings ?? []) as Array<{
    name: string;
    type: string;
    properties: Json;
  }>;
  const secret = mappings.filter((mapping) => mapping.properties.isSecret === true);
  if (secret.length > 0 && flags.deliveryAttributeMapping === undefined) {
    throw new InvalidArgumentError(
      `the subscription has secret custom headers (${secret.map((mapping) => mapping.name).join(', ')}) whose values are never shown; give every header again with --delivery-attribute-mapping`,
    );
  }
  // An AWS resource's document is its body as it stands (its ARN shown whole).
  if (isResource(destination)) {
    return {
      endpointType: destination.endpointType,
      properties: { ...rest, ...(mappings.length === 0 ? {} : { deliveryAttributeMappings: mappings }) },
    };
  }
  return {
    endpointType: 'WebHook',
    properties: {
      ...rest,
      ...(auth === undefined ? {} : { auth: authBodyOf(auth as Json | null, gaps) }),
      endpointUrl: gaps.endpointUrl,
      ...(mappings.length === 0 ? {} : { deliveryAttributeMappings: mappings }),
      // A signing subscription keeps its secrets: `generate` changes nothing when it has them.
      ...(signing === undefined || signing === null ? {} : { signing: { generate: true } }),
    },
  };
}

/** Endpoint auth as sent back: an OAuth 2.0 client's whole token URL, when `getFullUrl` gave it. */
function authBodyOf(auth: Json | null, gaps: DocumentGaps): Json | null {
  if (auth?.type !== 'OAuth2ClientCredentials' || gaps.tokenUrl === undefined) return auth;
  return { ...auth, tokenUrl: gaps.tokenUrl };
}

/** The filter as sent back: `includedEventTypes` null (every type) left out. */
function filterBodyOf(filter: Json | undefined): Json | undefined {
  if (filter === undefined || filter === null) return undefined;
  const { includedEventTypes, ...rest } = filter;
  return includedEventTypes === null ? rest : filter;
}

/** A classic subscription's document as a body to send back (for `update`). */
export function classicBodyOf(document: Json, gaps: DocumentGaps, flags: SubscriptionFlags): Json {
  const p = (document.properties ?? {}) as Json;
  return {
    properties: defined({
      destination: destinationBodyOf(p.destination as Json, gaps, flags),
      filter: filterBodyOf(p.filter as Json | undefined),
      retryPolicy: p.retryPolicy,
      eventDeliverySchema: p.eventDeliverySchema,
      labels: p.labels,
      deadLetterDestination: p.deadLetterDestination,
      expirationTimeUtc: p.expirationTimeUtc,
      deliveryLog: p.deliveryLog,
      orderedDelivery: p.orderedDelivery,
      disableAfterFailingFor: p.disableAfterFailingFor,
    }),
  };
}

/** A namespace subscription's document as a body to send back (for `update`). */
export function namespaceBodyOf(document: Json, gaps: DocumentGaps, flags: SubscriptionFlags): Json {
  const p = (document.properties ?? {}) as Json;
  const push = ((p.deliveryConfiguration as Json | undefined)?.push ?? {}) as Json;
  return {
    properties: defined({
      deliveryConfiguration: {
        deliveryMode: 'Push',
        push: defined({
          maxDeliveryCount: push.maxDeliveryCount,
          eventTimeToLive: push.eventTimeToLive,
          retrySchedule: push.retrySchedule,
          destination: destinationBodyOf(push.destination as Json, gaps, flags),
          deadLetterDestinationWithResourceIdentity:
            push.deadLetterDestinationWithResourceIdentity ?? undefined,
        }),
      },
      filtersConfiguration: filterBodyOf(p.filtersConfiguration as Json | undefined),
      labels: p.labels,
      expirationTimeUtc: p.expirationTimeUtc,
      deliveryLog: p.deliveryLog,
      orderedDelivery: p.orderedDelivery,
      disableAfterFailingFor: p.disableAfterFailingFor,
    }),
  };
}
