/**
 * Publish commits through the real DynamoDB emulator: a commit reads as written once put (a
 * strongly consistent read), an unknown id reads as missing, and the item expires after a day.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type Emulators, startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { TABLE } from '../../shared/config/resources';
import { type AwsClients, createAwsClients } from '../../shared/platform/aws';
import {
  COMMIT_RETENTION_SECONDS,
  COMMIT_SK,
  commitPk,
  DynamoCommitStore,
} from '../../shared/storage/commit-store';

let emulators: Emulators;
let clients: AwsClients;
let commits: DynamoCommitStore;

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.endpoints);
  await provisionLocalResources(clients);
  commits = new DynamoCommitStore(clients.dynamo, TABLE.localName);
}, 30_000);

afterAll(async () => {
  await emulators?.stop();
});

it('reads a commit as written once it is put, and an unknown one as missing', async () => {
  expect(await commits.exists('pub-1')).toBe(false);
  const at = Date.UTC(2026, 10, 24, 12, 0, 0, 500);
  await commits.put('pub-1', at);
  expect(await commits.exists('pub-1')).toBe(true);
  expect(await commits.exists('pub-2')).toBe(false);

  const { Item } = await clients.dynamo.send(
    new GetCommand({ TableName: TABLE.localName, Key: { pk: commitPk('pub-1'), sk: COMMIT_SK } }),
  );
  expect(Item).toEqual({
    pk: 'COMMIT#pub-1',
    sk: COMMIT_SK,
    at,
    [TABLE.ttlAttribute]: Math.ceil(at / 1000) + COMMIT_RETENTION_SECONDS,
  });
});
