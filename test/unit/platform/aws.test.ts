/**
 * The local SQS client leaves out the signature and the MD5 checks of message bodies; its requests
 * still name the region the emulator reads, and carry a proof of the stack's secret. A loopback server stands in for the emulator, so the
 * test sees the request as sent and can answer with an MD5 that does not match.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { localSqsAuthorization, localSqsClient } from '../../../shared/platform/aws';

const credentials = { accessKeyId: 'GWTEST', secretAccessKey: 'secret-of-this-stack' };

let server: Server;
let endpoint: string;
const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
let answer = '{}';

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      seen.push({ headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

describe('localSqsClient', () => {
  it('sends the credential scope and a proof of the secret instead of a signature, and the body unchanged', async () => {
    answer = JSON.stringify({ MessageId: 'm1', MD5OfMessageBody: '00000000000000000000000000000000' });
    const sqs = localSqsClient(endpoint, credentials);

    // The answer's MD5 does not match the body: the client would refuse it with the check on.
    const sent = await sqs.send(
      new SendMessageCommand({ QueueUrl: `${endpoint}/000000000000/q`, MessageBody: 'hello' }),
    );

    expect(sent.MessageId).toBe('m1');
    const [request] = seen;
    expect(request?.headers.authorization).toBe(localSqsAuthorization(credentials));
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=GWTEST\/\d{8}\/us-east-1\/sqs\/aws4_request, /,
    );
    // The proof is the secret's own: another secret makes another header, and neither shows it.
    expect(request?.headers.authorization).not.toBe(
      localSqsAuthorization({ ...credentials, secretAccessKey: 'another-secret' }),
    );
    expect(request?.headers.authorization).not.toContain(credentials.secretAccessKey);
    expect(request?.headers['x-amz-content-sha256']).toBeUndefined();
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ MessageBody: 'hello' });
  });

  it('takes received messages whatever their MD5 says', async () => {
    answer = JSON.stringify({
      Messages: [
        { MessageId: 'm2', ReceiptHandle: 'r', Body: 'world', MD5OfBody: 'ffffffffffffffffffffffffffffffff' },
      ],
    });
    const sqs = localSqsClient(endpoint, credentials);

    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: `${endpoint}/000000000000/q` }));

    expect(received.Messages?.map((message) => message.Body)).toEqual(['world']);
  });
});
