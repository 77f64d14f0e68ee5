/**
 * Delivery attribute mappings of a webhook destination (custom delivery headers): static values,
 * secret or not, and values read from the event, with the original's limits and header rules.
 */

import { z } from 'zod';

/** The original's limits on delivery attribute mappings (custom delivery headers). */
export const DELIVERY_ATTRIBUTE_LIMITS = {
  maxMappings: 10,
  nameChars: 100,
  /** UTF-8 bytes of a static value. */
  valueBytes: 4096,
  sourceFieldChars: 256,
} as const;

export const DELIVERY_ATTRIBUTE_TYPES = ['Static', 'Dynamic'] as const;

/** Prefix of the headers Gridwire itself sends with deliveries (as the original's `aeg-*`). */
const RESERVED_PREFIX = 'aeg-';

/**
 * Header names a mapping may not use, and why: Gridwire sets them for each request, or they
 * control the connection or the message's framing, so a custom value would break the request.
 */
export const RESERVED_HEADER_NAMES: Readonly<Record<string, string>> = {
  host: 'Gridwire sets it from the endpoint URL',
  'content-type': 'Gridwire sets it for the delivery schema',
  'content-length': 'Gridwire sets it from the body (it frames the request)',
  'content-encoding': 'it would make the endpoint decode the body wrongly',
  'transfer-encoding': 'it frames the request, which Gridwire controls',
  connection: 'it controls the connection, which Gridwire manages',
  'keep-alive': 'it controls the connection, which Gridwire manages',
  te: 'it negotiates transfer codings, which Gridwire controls',
  trailer: 'it announces trailer fields, which Gridwire never sends',
  upgrade: 'it asks to switch protocols, which would break the request',
  expect: 'it changes how the request is sent, which Gridwire controls',
};

/** RFC 9110 `token`: the characters of a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 `field-value` characters: tab, space, visible ASCII and obs-text (0x80-0xFF). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const headerName = z.string({ error: 'must be a string: an HTTP header name' }).superRefine((name, ctx) => {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
  if (name.length < 1 || name.length > DELIVERY_ATTRIBUTE_LIMITS.nameChars) {
    return fail(`must be 1 to ${DELIVERY_ATTRIBUTE_LIMITS.nameChars} characters (got ${name.length})`);
  }
  if (!HEADER_NAME.test(name)) {
    return fail(
      "must be a valid HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only (no spaces, colons or other characters)",
    );
  }
  const lower = name.toLowerCase();
  if (lower.startsWith(RESERVED_PREFIX)) {
    return fail(
      `must not start with '${RESERVED_PREFIX}': those headers are Gridwire's own delivery headers`,
    );
  }
  const reason = RESERVED_HEADER_NAMES[lower];
  if (reason !== undefined) return fail(`'${name}' can't be set by a mapping: ${reason}`);
});

const staticProperties = z.strictObject(
  {
    value: z
      .string({
        error:
          'must be a string (a secret value is never shown, so it is given again with every PUT of the subscription)',
      })
      .superRefine((value, ctx) => {
        const bytes = Buffer.byteLength(value, 'utf8');
        if (bytes > DELIVERY_ATTRIBUTE_LIMITS.valueBytes) {
          ctx.addIssue({
            code: 'custom',
            message: `may be at most ${DELIVERY_ATTRIBUTE_LIMITS.valueBytes} bytes in UTF-8 (got ${bytes} bytes)`,
          });
        } else if (!HEADER_VALUE.test(value)) {
          ctx.addIssue({
            code: 'custom',
            message:
              "holds a character a header value can't carry: only tab, space, visible ASCII and Latin-1 (0x80-0xFF), no CR, LF or other control characters",
          });
        }
      }),
    isSecret: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'is required: {"value": "...", "isSecret": false}' },
);

/**
 * A dotted path into the event (`data.tenant`), as `valueAtPath` reads it: not empty, at most 256
 * characters, no empty segment. A dynamic mapping's `sourceField`, a Kinesis destination's
 * `partitionKeyField`.
 */
export const eventFieldPathSchema = z
  .string({ error: 'must be a string: a dotted path into the event, such as data.tenant' })
  .superRefine((path, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (path === '') return fail('must not be empty: a dotted path into the event, such as data.tenant');
    if (path.length > DELIVERY_ATTRIBUTE_LIMITS.sourceFieldChars) {
      return fail(
        `may be at most ${DELIVERY_ATTRIBUTE_LIMITS.sourceFieldChars} characters (got ${path.length})`,
      );
    }
    if (path.split('.').some((segment) => segment === '')) {
      return fail("must be a dotted path with no empty segments (no leading, trailing or doubled '.')");
    }
  });

const dynamicProperties = z.strictObject(
  { sourceField: eventFieldPathSchema },
  { error: 'is required: {"sourceField": "data.tenant"}' },
);

export const deliveryAttributeMappingsSchema = z
  .array(
    z.discriminatedUnion(
      'type',
      [
        z.strictObject({ name: headerName, type: z.literal('Static'), properties: staticProperties }),
        z.strictObject({ name: headerName, type: z.literal('Dynamic'), properties: dynamicProperties }),
      ],
      {
        error: (issue) =>
          issue.code === 'invalid_union'
            ? `must be one of ${DELIVERY_ATTRIBUTE_TYPES.join(', ')}`
            : 'must be an object: {"name": "...", "type": "Static" or "Dynamic", "properties": {...}}',
      },
    ),
    { error: 'must be an array of mappings' },
  )
  .superRefine((mappings, ctx) => {
    if (mappings.length > DELIVERY_ATTRIBUTE_LIMITS.maxMappings) {
      ctx.addIssue({
        code: 'custom',
        message: `holds at most ${DELIVERY_ATTRIBUTE_LIMITS.maxMappings} mappings (got ${mappings.length})`,
      });
      return;
    }
    const seen = new Map<string, number>();
    mappings.forEach((mapping, index) => {
      const key = mapping.name.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `'${mapping.name}' is already the name of mapping ${first} (names are unique, ignoring case)`,
        });
      } else {
        seen.set(key, index);
      }
    });
  });
