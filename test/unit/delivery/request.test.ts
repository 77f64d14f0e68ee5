import { buildDeliveryRequest as buildFromEvents, outgoingEvents } from '../../../shared/delivery/request';
import { MAX_ECHOED_HEADER_CHARS } from '../../../shared/delivery/rules/headers';
import type { DeliveryItem } from '../../../shared/domain/delivery';
import type { Subscription } from '../../../shared/domain/model';

/** The request for `items`, each converted to the subscription's delivery schema. */
const buildDeliveryRequest = (subscription: Subscription, items: readonly DeliveryItem[]) =>
  buildFromEvents(subscription, outgoingEvents(subscription, items));

import { item, subscription } from '../../support/fakes';

describe('delivery request headers', () => {
  const one = (id: string, dataVersion: string) =>
    buildDeliveryRequest(subscription(), [item(id, 0, { event: { dataVersion } })]).headers;

  it('echo the event id and data version when they can travel in a header', () => {
    expect(one('order-1', '2.0')).toMatchObject({
      'aeg-output-event-id': 'order-1',
      'aeg-data-version': '2.0',
    });
  });

  it.each([
    ['a line break', 'id\r\nx-injected: 1'],
    ['characters beyond Latin-1', 'заказ-1'],
    ['more than 1 KiB', 'x'.repeat(MAX_ECHOED_HEADER_CHARS + 1)],
  ])('leave out a value with %s (the body still carries it)', (_what, value) => {
    const headers = one(value, value);
    expect(headers['aeg-output-event-id']).toBeUndefined();
    expect(headers['aeg-data-version']).toBeUndefined();
    expect(headers['x-injected']).toBeUndefined();
  });
});

describe('delivery request content type', () => {
  const cloudEvent = '{"specversion":"1.0","id":"ce-1","source":"/o","type":"t","data":{"n":1.50}}';
  const ceItem = (dataVersion: string) =>
    item('ce-1', 0, { eventJson: cloudEvent, eventId: 'ce-1', dataVersion });
  const ceSubscription = subscription({ eventDeliverySchema: 'CloudEventSchemaV1_0' });

  it('is application/json for Event Grid subscriptions', () => {
    expect(buildDeliveryRequest(subscription(), [item('a', 0)]).headers['content-type']).toBe(
      'application/json; charset=utf-8',
    );
  });

  it('is the CloudEvents batch type for CloudEvents subscriptions, with the events as published', () => {
    const request = buildDeliveryRequest(ceSubscription, [ceItem('')]);
    expect(request.headers).toMatchObject({
      'content-type': 'application/cloudevents-batch+json; charset=utf-8',
      'aeg-event-type': 'Notification',
      'aeg-subscription-name': 'AUDIT',
      'aeg-delivery-count': '0',
      'aeg-output-event-id': 'ce-1',
    });
    expect(request.body).toBe(`[${cloudEvent}]`);
  });

  it('sends aeg-data-version for a CloudEvent only when it has a dataversion', () => {
    expect(buildDeliveryRequest(ceSubscription, [ceItem('')]).headers['aeg-data-version']).toBeUndefined();
    expect(buildDeliveryRequest(ceSubscription, [ceItem('2.0')]).headers['aeg-data-version']).toBe('2.0');
  });
});

describe('delivery request for a CloudEvents subscription of an Event Grid topic', () => {
  const ceSubscription = subscription({ eventDeliverySchema: 'CloudEventSchemaV1_0' });

  it('sends the events converted to CloudEvents, in a CloudEvents batch', () => {
    const eventGrid = item('order-1', Date.parse('2026-11-22T10:00:00Z'), {
      eventJson:
        '{"id":"order-1","subject":"orders/1","eventType":"Order.Created","eventTime":"2026-11-22T10:00:00Z","data":{"big":9007199254740993},"topic":"/gridwire/topics/orders","metadataVersion":"1","dataVersion":""}',
      dataVersion: '',
    });
    const request = buildDeliveryRequest(ceSubscription, [eventGrid]);
    expect(request.headers['content-type']).toBe('application/cloudevents-batch+json; charset=utf-8');
    expect(request.headers['aeg-data-version']).toBeUndefined();
    expect(request.headers['aeg-output-event-id']).toBe('order-1');
    expect(request.body).toBe(
      '[{"specversion":"1.0","id":"order-1","source":"/gridwire/topics/orders","type":"Order.Created","subject":"orders/1","time":"2026-11-22T10:00:00Z","datacontenttype":"application/json","data":{"big":9007199254740993}}]',
    );
  });

  it('leaves the Event Grid text of the same event alone for an Event Grid subscription', () => {
    const eventGrid = item('order-1', 0);
    expect(buildDeliveryRequest(subscription(), [eventGrid]).body).toBe(`[${eventGrid.eventJson}]`);
  });
});
