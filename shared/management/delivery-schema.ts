/**
 * A subscription's delivery schema, decided against its topic's input schema by the original's
 * rules.
 */

import type { EventDeliverySchema, InputSchema } from '../domain/model';
import { badRequest } from '../http/errors';
import type { SubscriptionInput } from './subscription-schema';

/**
 * The delivery schema of a subscription on a topic with `inputSchema`, by the original's rules.
 * Event Grid input: Event Grid (default) or CloudEvents 1.0 (converted when delivered). Custom
 * input: Event Grid through the topic's mapping (default), CloudEvents 1.0 through it too, or
 * CustomInputSchema (as published). CloudEvents input: CloudEvents only. Anything else is a 400
 * naming `eventDeliverySchema`.
 */
export function deliverySchemaFor(
  inputSchema: InputSchema,
  requested: SubscriptionInput['eventDeliverySchema'],
): EventDeliverySchema {
  switch (inputSchema) {
    case 'CloudEventSchemaV1_0':
      if (requested === undefined || requested === 'CloudEventSchemaV1_0') return 'CloudEventSchemaV1_0';
      throw badRequest(
        `properties.eventDeliverySchema: a topic with input schema CloudEventSchemaV1_0 delivers CloudEventSchemaV1_0 only; CloudEvents input can't be converted to ${requested}.`,
      );
    case 'EventGridSchema':
      if (requested === 'CustomInputSchema') {
        throw badRequest(
          'properties.eventDeliverySchema: CustomInputSchema delivers events as their publisher wrote them, which only topics with input schema CustomEventSchema take; this topic delivers EventGridSchema or CloudEventSchemaV1_0.',
        );
      }
      return requested ?? 'EventGridSchema';
    case 'CustomEventSchema':
      // As on the original, a custom topic delivers the Event Grid form (through its mapping) by default.
      return requested ?? 'EventGridSchema';
  }
}
