import { currentQueueUrl } from '../../../local/endpoints-file';

describe('queue URLs in endpoints.json', () => {
  it('take the queue path onto the SQS endpoint as it listens now', () => {
    expect(
      currentQueueUrl(
        'http://sqs.us-east-1.127.0.0.1:45315/000000000000/gridwire-delivery',
        'http://127.0.0.1:42629',
      ),
    ).toBe('http://127.0.0.1:42629/000000000000/gridwire-delivery');
    expect(currentQueueUrl('http://127.0.0.1:1/000000000000/q', 'http://127.0.0.1:2')).toBe(
      'http://127.0.0.1:2/000000000000/q',
    );
  });

  it('leave a URL they cannot read as it is', () => {
    expect(currentQueueUrl('not a url', 'http://127.0.0.1:2')).toBe('not a url');
  });
});
