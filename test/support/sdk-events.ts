/** Events as the official Event Grid SDK takes them (it stamps `eventTime` and the rest itself). */
export const sdkGridEvent = (id: string) => ({
  id,
  subject: `orders/${id}`,
  eventType: 'Order.Created',
  dataVersion: '1.0',
  data: { id },
});
