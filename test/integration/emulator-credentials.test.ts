/**
 * Only the stack's own credentials reach its state. The emulators (SQS and S3, DynamoDB) listen on
 * Unix sockets in a directory only this user can open, behind loopback gates that check every
 * request's signature: without credentials, with credentials of another stack, or with the right
 * key and a wrong secret, SQS, S3 and DynamoDB refuse, and a delivery job forged from a real one
 * is never queued (the same job sent with the stack's credentials is delivered: the forgery is a
 * good one). As another Unix user (`nobody`, when the tests run as root), the same requests are
 * refused too, and the data directory's `credentials` file cannot be read.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ListQueuesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { CREDENTIALS_FILE, newLocalCredentials, parseCredentialsFile } from '../../local/emulator-access';
import { type AwsClients, createAwsClients, type LocalCredentials } from '../../shared/platform/aws';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventMarker, requestsCarrying, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
/** Bodies of the jobs the stack's functions sent to the delivery queue. */
const deliveryJobs: string[] = [];

function recordDeliveryJobs(clients: AwsClients): void {
  clients.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        QueueUrl?: string;
        MessageBody?: string;
        Entries?: Array<{ MessageBody?: string }>;
      };
      if (/gridwire-delivery$/.test(input.QueueUrl ?? '')) {
        if (context.commandName === 'SendMessageCommand' && input.MessageBody)
          deliveryJobs.push(input.MessageBody);
        if (context.commandName === 'SendMessageBatchCommand')
          for (const entry of input.Entries ?? [])
            if (entry.MessageBody) deliveryJobs.push(entry.MessageBody);
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordDeliveryJobs' },
  );
}

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60, instrumentClients: recordDeliveryJobs });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** The stack's endpoints with `credentials` in place of its own. */
const clientsWith = (credentials: LocalCredentials) =>
  createAwsClients({ ...api.stack.endpoints, credentials });

/** The status a call was refused with (undefined if it was answered). */
async function refusal(call: () => Promise<unknown>): Promise<{ status?: number; name: string } | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    const failed = error as { name: string; $metadata?: { httpStatusCode?: number } };
    return { status: failed.$metadata?.httpStatusCode, name: failed.name };
  }
}

/** Lists the queues, the dead-letter bucket and the table with `clients`. */
const readState = (clients: AwsClients) => ({
  sqs: () => clients.sqs.send(new ListQueuesCommand({})),
  s3: () => clients.s3.send(new ListObjectsV2Command({ Bucket: api.stack.resources.bucketName })),
  dynamodb: () =>
    clients.dynamo.send(new ScanCommand({ TableName: api.stack.resources.tableName, Limit: 5 })),
});

describe('the emulators', () => {
  it('answer the stack’s own credentials, from the data directory’s credentials file too', async () => {
    const stored = parseCredentialsFile(await readFile(join(api.stack.dataDir, CREDENTIALS_FILE), 'utf8'));
    expect(stored).toEqual(api.stack.endpoints.credentials);
    const own = clientsWith(stored as LocalCredentials);
    const reads = readState(own);
    expect((await reads.sqs()).QueueUrls?.length).toBeGreaterThan(0);
    await expect(reads.s3()).resolves.toBeDefined();
    await expect(reads.dynamodb()).resolves.toBeDefined();
    // An SDK client signing with SigV4 (not the stack's own SQS client's header) is answered too.
    const signed = new SQSClient({
      endpoint: api.stack.endpoints.sqs,
      region: 'us-east-1',
      credentials: stored,
    });
    expect((await signed.send(new ListQueuesCommand({}))).QueueUrls?.length).toBeGreaterThan(0);
    signed.destroy();
  });

  it.each([
    ['another stack’s credentials', () => newLocalCredentials()],
    [
      'the right key with a wrong secret',
      () => ({ ...api.stack.endpoints.credentials, secretAccessKey: 'guessed' }),
    ],
  ])('refuse %s: SQS, S3 and DynamoDB', async (_, credentials) => {
    const reads = readState(clientsWith(credentials()));
    const refused = {
      sqs: await refusal(reads.sqs),
      s3: await refusal(reads.s3),
      dynamodb: await refusal(reads.dynamodb),
    };
    expect(refused.sqs?.status).toBe(403);
    expect(refused.s3?.status).toBe(403);
    expect(refused.dynamodb?.status).toBe(400);
    expect(['InvalidClientTokenId', 'SignatureDoesNotMatch']).toContain(refused.sqs?.name);
    expect(['InvalidAccessKeyId', 'SignatureDoesNotMatch']).toContain(refused.s3?.name);
    expect(['UnrecognizedClientException', 'InvalidSignatureException']).toContain(refused.dynamodb?.name);
  });

  it('refuse requests without credentials', async () => {
    const { sqs, dynamodb } = api.stack.endpoints;
    const answers = await Promise.all([
      fetch(`${sqs}/`, {
        method: 'POST',
        headers: { 'x-amz-target': 'AmazonSQS.ListQueues', 'content-type': 'application/x-amz-json-1.0' },
        body: '{}',
      }),
      fetch(`${sqs}/${api.stack.resources.bucketName}?list-type=2`),
      fetch(`${dynamodb}/`, {
        method: 'POST',
        headers: {
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'content-type': 'application/x-amz-json-1.0',
        },
        body: '{}',
      }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 400]);
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    expect(bodies[0]).toContain('MissingAuthenticationToken');
    expect(bodies[1]).toContain('<Code>AccessDenied</Code>');
    expect(bodies[2]).toContain('MissingAuthenticationToken');
  });

  it('never queue a delivery job forged without the stack’s credentials', async () => {
    const key = await api.createTopic('forged');
    const hook = webhook.url('/forged');
    await api.subscribe('forged', 'hook', hook);
    expect((await api.publish('forged', key, [event('f-1')])).status).toBe(200);
    await requestsCarrying(webhook, '/forged', 'f-1', 1);
    const job = deliveryJobs.find((body) => body.includes('f-1'));
    expect(job).toBeDefined();

    const queueUrl = api.stack.resources.queueUrls.delivery;
    const forge = (clients: AwsClients) =>
      clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: job as string }));
    expect(await refusal(() => forge(clientsWith(newLocalCredentials())))).toMatchObject({ status: 403 });
    expect(
      await refusal(() =>
        forge(clientsWith({ ...api.stack.endpoints.credentials, secretAccessKey: 'guessed' })),
      ),
    ).toMatchObject({ status: 403 });

    // The same job with the stack's credentials is delivered again: the forgery was a real job.
    await forge(api.stack.clients);
    const delivered = await requestsCarrying(webhook, '/forged', 'f-1', 2);
    expect(delivered.every((request) => request.body.includes(eventMarker('f-1')))).toBe(true);
    expect(webhook.requestsTo('/forged')).toHaveLength(2);
  });
});

/** `node -e script` as `nobody`; undefined when this process cannot switch users. */
function runAsNobody(script: string, env: Record<string, string>): string | undefined {
  const result = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (result.status !== 0) throw new Error(`as nobody: ${result.stderr || result.error?.message}`);
  return result.stdout;
}

const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.warn('emulator-credentials: not run as root, so the part as another Unix user (nobody) is skipped');

(asRoot ? describe : describe.skip)('another Unix user (nobody)', () => {
  it('cannot read the credentials, and is refused by SQS, S3 and DynamoDB with a signature-shaped header', async () => {
    // The header the local SQS client sent before the emulators took only the stack's credentials.
    const script = `
      const fs = require('node:fs');
      const auth = (service) => 'AWS4-HMAC-SHA256 Credential=gridwire/20260101/us-east-1/' + service + '/aws4_request, SignedHeaders=host, Signature=unsigned-local';
      (async () => {
        let credentials = 'unreadable';
        try { fs.readFileSync(process.env.CREDENTIALS); credentials = 'read'; } catch {}
        const json = { 'content-type': 'application/x-amz-json-1.0' };
        const statuses = await Promise.all([
          fetch(process.env.SQS + '/', { method: 'POST', headers: { ...json, 'x-amz-target': 'AmazonSQS.ListQueues', authorization: auth('sqs') }, body: '{}' }),
          fetch(process.env.SQS + '/' + process.env.BUCKET + '?list-type=2', { headers: { authorization: auth('s3') } }),
          fetch(process.env.DYNAMODB + '/', { method: 'POST', headers: { ...json, 'x-amz-target': 'DynamoDB_20120810.Scan', authorization: auth('dynamodb') }, body: JSON.stringify({ TableName: process.env.TABLE }) }),
        ].map((call) => call.then((answer) => answer.status)));
        console.log(JSON.stringify({ credentials, statuses }));
      })();
    `;
    const output = runAsNobody(script, {
      CREDENTIALS: join(api.stack.dataDir, CREDENTIALS_FILE),
      SQS: api.stack.endpoints.sqs,
      DYNAMODB: api.stack.endpoints.dynamodb,
      BUCKET: api.stack.resources.bucketName,
      TABLE: api.stack.resources.tableName,
    });
    expect(JSON.parse(output ?? '{}')).toEqual({ credentials: 'unreadable', statuses: [403, 403, 400] });
  });
});
