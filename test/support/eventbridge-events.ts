/** An EventBridge event as a rule's target receives it: S3's "Object Created", for the source tests. */
export const S3_OBJECT_CREATED = {
  version: '0',
  id: '7bf73129-1428-4cd3-a780-95db273d1602',
  'detail-type': 'Object Created',
  source: 'aws.s3',
  account: '123456789012',
  time: '2026-12-01T10:00:00Z',
  region: 'eu-west-1',
  resources: ['arn:aws:s3:::uploads'],
  detail: { bucket: { name: 'uploads' }, object: { key: 'a.png' } },
};
