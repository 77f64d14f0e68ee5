/**
 * The resource sender's error paths, with fake service clients (the happy path runs against the
 * emulator in `test/integration/resource-destinations.test.ts`; the entries' fields are tabled in
 * `rules/resource-messages.test.ts`): a result per message when a batch call fails in part or as
 * a whole, the queue URL asked once, and the clients of a role to assume.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { AwsResourceSender } from '../../../shared/delivery/resource-sender';
import type { ResourceMessage } from '../../../shared/delivery/rules/resource-messages';
import type { ResourceDestination } from '../../../shared/domain/model';
import { VirtualClock } from '../../../shared/platform/clock';

interface Sent {
  name: string;
  input: Record<string, unknown>;
}

/** A client whose commands are answered by `answer` (by command name), each one noted. */
function fakeClient(answer: (name: string, input: Record<string, unknown>) => unknown) {
  const sent: Sent[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = command.constructor.name;
      sent.push({ name, input: command.input });
      return answer(name, command.input);
    },
  };
  return { client, sent };
}

const queue = (arn: string): ResourceDestination => ({ endpointType: 'AwsSqsQueue', resourceArn: arn });
const messages: ResourceMessage[] = [
  { deliveryId: 'd-1', body: '{"id":"1"}', attributes: { tenant: 'acme' }, groupId: 'orders/1' },
  { deliveryId: 'd-2', body: '{"id":"2"}', attributes: {} },
];

function sender(sqsAnswer: (name: string, input: Record<string, unknown>) => unknown) {
  const sqs = fakeClient(sqsAnswer);
  const sns = fakeClient(() => ({ Failed: [] }));
  const instance = new AwsResourceSender({
    clients: { sqs: () => sqs.client as unknown as SQSClient, sns: () => sns.client as unknown as SNSClient },
    clock: new VirtualClock(),
  });
  return { instance, sqs: sqs.sent };
}

const queueUrl = (name: string) =>
  name === 'GetQueueUrlCommand' ? { QueueUrl: 'http://queue/orders' } : undefined;

describe('the resource sender', () => {
  it('gives each message its own result when a batch call refuses some entries', async () => {
    const { instance } = sender(
      (name) =>
        queueUrl(name) ?? {
          Successful: [{ Id: '0' }],
          Failed: [{ Id: '1', Code: 'InvalidMessageContents', SenderFault: true, Message: 'bad character' }],
        },
    );
    const [first, second] = await instance.send(queue('arn:aws:sqs:us-east-1:123456789012:orders'), messages);
    expect(first).toMatchObject({ delivered: true });
    expect(second).toMatchObject({
      delivered: false,
      outcome: 'BadRequest',
      errorCode: 'InvalidMessageContents',
      error: 'InvalidMessageContents: bad character',
    });
  });

  it('fails every message by the error’s rule when the call fails, and asks the queue URL once', async () => {
    const { instance, sqs } = sender((name) => {
      if (name === 'GetQueueUrlCommand') return { QueueUrl: 'http://queue/orders' };
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    });
    const destination = queue('arn:aws:sqs:us-east-1:123456789012:orders');
    const results = await instance.send(destination, messages);
    expect(results).toEqual([
      expect.objectContaining({ delivered: false, outcome: 'Busy', errorCode: 'ThrottlingException' }),
      expect.objectContaining({ delivered: false, outcome: 'Busy', errorCode: 'ThrottlingException' }),
    ]);
    await instance.send(destination, messages);
    expect(sqs.filter((call) => call.name === 'GetQueueUrlCommand')).toHaveLength(1);
  });

  it('ends the messages to a queue that does not exist with NotFound', async () => {
    const { instance } = sender(() => {
      throw Object.assign(new Error('The specified queue does not exist.'), {
        name: 'QueueDoesNotExist',
        Code: 'AWS.SimpleQueueService.NonExistentQueue',
      });
    });
    const [result] = await instance.send(queue('arn:aws:sqs:us-east-1:123456789012:gone'), messages);
    expect(result).toMatchObject({
      outcome: 'NotFound',
      errorCode: 'AWS.SimpleQueueService.NonExistentQueue',
    });
  });

  it('sends with the clients of the role to assume, when the destination names one', async () => {
    const asked: Array<[string, string | undefined]> = [];
    const sqs = fakeClient((name) => queueUrl(name) ?? { Successful: [], Failed: [] });
    const instance = new AwsResourceSender({
      clients: {
        sqs: (region, role) => {
          asked.push([region, role]);
          return sqs.client as unknown as SQSClient;
        },
        sns: () => undefined as unknown as SNSClient,
      },
      clock: new VirtualClock(),
    });
    const role = 'arn:aws:iam::210987654321:role/gridwire-delivery';
    await instance.send({ ...queue('arn:aws:sqs:eu-west-1:210987654321:billing'), roleArn: role }, messages);
    expect(asked).toEqual([['eu-west-1', role]]);
    expect(sqs.sent.find((call) => call.name === 'GetQueueUrlCommand')?.input).toEqual({
      QueueName: 'billing',
      QueueOwnerAWSAccountId: '210987654321',
    });
  });
});
