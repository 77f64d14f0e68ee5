/**
 * What every admin request body shares: the name check of a path segment, the one wording of a
 * refused body (naming the field and the allowed values), and integers within a profile's range.
 */

import { type ZodError, z } from 'zod';
import type { Range } from '../delivery/rules/profiles';
import { isValidName, NAME_RULES, type NameKind } from '../domain/names';
import { badRequest } from '../http/errors';
import { firstIssue } from '../platform/zod-issues';

/** Checks a topic or subscription name from the path; throws a 400 naming the rule. */
export function validateName(kind: NameKind, name: string): string {
  const rule = NAME_RULES[kind];
  if (!isValidName(kind, name)) {
    throw badRequest(
      `The ${kind} name '${name}' is invalid: use ${rule.min} to ${rule.max} characters, letters, digits and hyphens only.`,
      'InvalidName',
    );
  }
  return name;
}

/** Fields of the original API that later Gridwire versions accept; named so the error says so. */
const NOT_YET_SUPPORTED = new Set([
  'properties.deliveryWithResourceIdentity',
  'properties.destination.properties.azureActiveDirectoryTenantId',
  'properties.destination.properties.azureActiveDirectoryApplicationIdOrUri',
]);

/** Turns the first zod issue into a 400 whose message names the field. */
export function invalidBody(error: ZodError, what: string): Error {
  const first = firstIssue(error);
  if (first === undefined) return badRequest(`The ${what} is invalid.`);
  const { issue, path } = first;
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.map((key) => (path === '' ? key : `${path}.${key}`));
    const later = fields.filter((field) => NOT_YET_SUPPORTED.has(field));
    if (later.length > 0) {
      return badRequest(
        `${later.join(', ')}: not supported yet by this version of Gridwire.`,
        'NotSupported',
      );
    }
    return badRequest(`${fields.join(', ')}: unknown field${fields.length > 1 ? 's' : ''} in the ${what}.`);
  }
  return badRequest(`${path === '' ? 'body' : path}: ${issue.message}.`);
}

/** An integer in `range`; the message names the range. */
export const intInRange = (range: Pick<Range, 'min' | 'max'>) =>
  z
    .number({ error: `must be an integer between ${range.min} and ${range.max}` })
    .int({ error: `must be an integer between ${range.min} and ${range.max}` })
    .min(range.min, {
      error: `must be an integer between ${range.min} and ${range.max} (got a smaller value)`,
    })
    .max(range.max, {
      error: `must be an integer between ${range.min} and ${range.max} (got a larger value)`,
    });
