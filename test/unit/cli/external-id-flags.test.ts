/**
 * `--external-id` on the command line: the destination's `externalId` beside its role, dropped
 * with `--no-external-id` or `--no-role-arn`, refused for a webhook and without a role.
 */

import { gridwireProgram } from '../../../cli/program';
import { classicBodyOf, classicSubscriptionBody } from '../../../cli/subscription/body';

const QUEUE = 'arn:aws:sqs:us-east-1:210987654321:orders';
const ROLE = 'arn:aws:iam::210987654321:role/gridwire-sender';

const destinationOf = (
  flags: Parameters<typeof classicSubscriptionBody>[0],
  base?: Record<string, unknown>,
) => JSON.parse(JSON.stringify(classicSubscriptionBody(flags, base))).properties.destination;

/** A subscription document as `update` reads it: a queue through the role, with an external id. */
const withExternalId = () =>
  classicBodyOf(
    {
      properties: {
        destination: {
          endpointType: 'AwsSqsQueue',
          properties: { resourceArn: QUEUE, roleArn: ROLE, externalId: 'gridwire-orders' },
        },
      },
    },
    { endpointUrl: '' },
    {},
  );

describe('--external-id', () => {
  it('sets the external id beside the role', () => {
    expect(destinationOf({ resourceArn: QUEUE, roleArn: ROLE, externalId: 'gridwire-orders' })).toEqual({
      endpointType: 'AwsSqsQueue',
      properties: { resourceArn: QUEUE, roleArn: ROLE, externalId: 'gridwire-orders' },
    });
  });

  it('is kept by an update that does not name it, dropped by --no-external-id and --no-role-arn', () => {
    expect(destinationOf({ maxEventsPerBatch: 5 }, withExternalId()).properties).toMatchObject({
      externalId: 'gridwire-orders',
    });
    expect(destinationOf({ externalId: false }, withExternalId()).properties).toEqual({
      resourceArn: QUEUE,
      roleArn: ROLE,
    });
    expect(destinationOf({ roleArn: false }, withExternalId()).properties).toEqual({ resourceArn: QUEUE });
  });

  it('is refused for a webhook and beside --no-role-arn', () => {
    expect(() =>
      classicSubscriptionBody({ endpoint: 'https://a.example/h', externalId: 'gridwire-orders' }),
    ).toThrow('--external-id: for AWS resources only, not a webhook');
    expect(() => destinationOf({ roleArn: false, externalId: 'gridwire-orders' }, withExternalId())).toThrow(
      '--external-id: sent when the role is assumed, not with --no-role-arn',
    );
  });

  it('is an option of subscription create and update, with --no-external-id', () => {
    for (const name of ['create', 'update']) {
      const command = gridwireProgram()
        .commands.find((command) => command.name() === 'subscription')
        ?.commands.find((command) => command.name() === name);
      const flags = command?.options.map((option) => option.long);
      expect(flags).toEqual(expect.arrayContaining(['--external-id', '--no-external-id']));
    }
  });
});
