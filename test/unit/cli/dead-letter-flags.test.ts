/**
 * `--deadletter-bucket`, `--deadletter-role-arn` and `--deadletter-external-id` on the command
 * line: the dead-letter destination's `resourceId` (a bucket ARN), `roleArn` and `externalId`
 * beside its container, in the classic body and the namespace push body; kept by an update that
 * does not name them, replaced one by one by the flags given, refused without a container.
 */
import { gridwireProgram } from '../../../cli/program';
import {
  classicBodyOf,
  classicSubscriptionBody,
  namespaceBodyOf,
  namespaceSubscriptionBody,
} from '../../../cli/subscription/body';
import { deadLetterBucketArgument } from '../../../cli/subscription/dead-letter-flags';

const BUCKET = 'arn:aws:s3:::acme-dead-letters';
const ROLE = 'arn:aws:iam::210987654321:role/gridwire-dead-letters';
const ENDPOINT = 'https://a.example/h';

type Flags = Parameters<typeof classicSubscriptionBody>[0];

/** The classic body's dead-letter destination as sent (fields set to undefined left out). */
const classicDeadLetterOf = (flags: Flags, base?: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(classicSubscriptionBody({ endpoint: ENDPOINT, ...flags }, base))).properties
    .deadLetterDestination;

/** The namespace body's dead-letter destination as sent. */
const namespaceDeadLetterOf = (flags: Flags, base?: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(namespaceSubscriptionBody({ endpoint: ENDPOINT, ...flags }, base))).properties
    .deliveryConfiguration.push.deadLetterDestinationWithResourceIdentity;

const storageBlob = (properties: Record<string, unknown>) => ({ endpointType: 'StorageBlob', properties });

/** A classic subscription as `update` reads it, dead-lettering as `properties` says (or not at all). */
const classicBase = (properties?: Record<string, unknown>) =>
  classicBodyOf(
    {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointBaseUrl: ENDPOINT } },
        ...(properties === undefined ? {} : { deadLetterDestination: storageBlob(properties) }),
      },
    },
    { endpointUrl: ENDPOINT },
    {},
  );

/** A namespace subscription as `update` reads it. */
const namespaceBase = (properties?: Record<string, unknown>) =>
  namespaceBodyOf(
    {
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            destination: { endpointType: 'WebHook', properties: { endpointBaseUrl: ENDPOINT } },
            ...(properties === undefined
              ? {}
              : {
                  deadLetterDestinationWithResourceIdentity: {
                    deadLetterDestination: storageBlob(properties),
                  },
                }),
          },
        },
      },
    },
    { endpointUrl: ENDPOINT },
    {},
  );

/** Dead letters in a bucket of another account, through a role with an external id. */
const ELSEWHERE = { blobContainerName: 'dead', resourceId: BUCKET, roleArn: ROLE, externalId: 'gridwire-dl' };

describe('--deadletter-bucket', () => {
  it('takes a bucket name as its ARN, and an S3 bucket ARN as it is', () => {
    expect(deadLetterBucketArgument('acme-dead-letters')).toBe(BUCKET);
    expect(deadLetterBucketArgument('logs.acme.example')).toBe('arn:aws:s3:::logs.acme.example');
    expect(deadLetterBucketArgument(BUCKET)).toBe(BUCKET);
    expect(deadLetterBucketArgument('arn:aws-cn:s3:::acme-dl')).toBe('arn:aws-cn:s3:::acme-dl');
  });

  it.each([
    ['Acme_Dead', /--deadletter-bucket: 'Acme_Dead' is neither an S3 bucket name .* nor a bucket ARN/],
    ['ab', /--deadletter-bucket: 'ab' is neither an S3 bucket name/],
    ['arn:aws:sqs:us-east-1:210987654321:dead', /--deadletter-bucket: '.*' is not an S3 bucket ARN/],
    ['arn:aws:s3:::', /is not an S3 bucket ARN \(arn:aws:s3:::<bucket>\)/],
    ['', /--deadletter-bucket: give a bucket name or ARN; --no-deadletter-bucket/],
  ])('refuses %j, naming the flag', (value, message) => {
    expect(() => deadLetterBucketArgument(value)).toThrow(message);
  });
});

describe('dead-letter destination bodies', () => {
  it('on create, put the bucket, role and external id beside the container (classic and namespace)', () => {
    const flags: Flags = {
      deadletterContainer: 'dead',
      deadletterBucket: 'acme-dead-letters',
      deadletterRoleArn: ROLE,
      deadletterExternalId: 'gridwire-dl',
    };
    expect(classicDeadLetterOf(flags)).toEqual(storageBlob(ELSEWHERE));
    expect(namespaceDeadLetterOf(flags)).toEqual({ deadLetterDestination: storageBlob(ELSEWHERE) });
    // The stack's own bucket: the container alone, as before.
    expect(classicDeadLetterOf({ deadletterContainer: 'dead' })).toEqual(
      storageBlob({ blobContainerName: 'dead' }),
    );
    expect(classicDeadLetterOf({ deadletterContainer: 'dead', deadletterBucket: BUCKET })).toEqual(
      storageBlob({ blobContainerName: 'dead', resourceId: BUCKET }),
    );
  });

  it('on update, keep the bucket, role and external id unless a flag changes them', () => {
    for (const [deadLetterOf, base] of [
      [classicDeadLetterOf, classicBase],
      [
        (flags: Flags, b?: Record<string, unknown>) => namespaceDeadLetterOf(flags, b)?.deadLetterDestination,
        namespaceBase,
      ],
    ] as const) {
      expect(deadLetterOf({ maxDeliveryAttempts: 3 }, base(ELSEWHERE))).toEqual(storageBlob(ELSEWHERE));
      expect(deadLetterOf({ deadletterContainer: 'later' }, base(ELSEWHERE))).toEqual(
        storageBlob({ ...ELSEWHERE, blobContainerName: 'later' }),
      );
      // Another bucket: the role is kept (the flags given replace their fields only).
      expect(deadLetterOf({ deadletterBucket: 'arn:aws:s3:::other' }, base(ELSEWHERE))).toEqual(
        storageBlob({ ...ELSEWHERE, resourceId: 'arn:aws:s3:::other' }),
      );
      expect(deadLetterOf({ deadletterExternalId: 'new-id' }, base(ELSEWHERE))).toEqual(
        storageBlob({ ...ELSEWHERE, externalId: 'new-id' }),
      );
      expect(deadLetterOf({ deadletterExternalId: false }, base(ELSEWHERE))).toEqual(
        storageBlob({ blobContainerName: 'dead', resourceId: BUCKET, roleArn: ROLE }),
      );
      // No role: no external id.
      expect(deadLetterOf({ deadletterRoleArn: false }, base(ELSEWHERE))).toEqual(
        storageBlob({ blobContainerName: 'dead', resourceId: BUCKET }),
      );
      // Back to the stack's own bucket: its role and external id go with the bucket.
      expect(deadLetterOf({ deadletterBucket: false }, base(ELSEWHERE))).toEqual(
        storageBlob({ blobContainerName: 'dead' }),
      );
      // A bucket for dead letters the stack already writes: the container is kept.
      expect(
        deadLetterOf(
          { deadletterBucket: BUCKET, deadletterRoleArn: ROLE },
          base({ blobContainerName: 'dead' }),
        ),
      ).toEqual(storageBlob({ blobContainerName: 'dead', resourceId: BUCKET, roleArn: ROLE }));
    }
  });

  it('on update, send back a namespace subscription without dead letters as it is', () => {
    expect(namespaceDeadLetterOf({ maxDeliveryAttempts: 3 }, namespaceBase())).toBeUndefined();
    expect(classicDeadLetterOf({ maxDeliveryAttempts: 3 }, classicBase())).toBeUndefined();
  });

  it('refuse the bucket, role and external id without a container, on create and on update', () => {
    const message =
      '--deadletter-bucket, --deadletter-role-arn: give --deadletter-container too; the subscription has no dead-letter destination';
    const flags: Flags = { deadletterBucket: BUCKET, deadletterRoleArn: ROLE };
    expect(() => classicDeadLetterOf(flags)).toThrow(message);
    expect(() => namespaceDeadLetterOf(flags)).toThrow(message);
    expect(() => classicDeadLetterOf(flags, classicBase())).toThrow(message);
    expect(() => namespaceDeadLetterOf(flags, namespaceBase())).toThrow(message);
    expect(() => classicDeadLetterOf({ deadletterBucket: false })).toThrow(
      '--no-deadletter-bucket: give --deadletter-container too',
    );
  });

  it("refuse a role for the stack's own bucket, and an external id without a role", () => {
    expect(() => classicDeadLetterOf({ deadletterContainer: 'dead', deadletterRoleArn: ROLE })).toThrow(
      "--deadletter-role-arn: for a bucket named with --deadletter-bucket (the stack's own bucket is written with its own credentials)",
    );
    expect(() =>
      classicDeadLetterOf({ deadletterBucket: false, deadletterRoleArn: ROLE }, classicBase(ELSEWHERE)),
    ).toThrow(
      '--deadletter-role-arn: for a bucket named with --deadletter-bucket, not with --no-deadletter-bucket',
    );
    // A resourceId that names no bucket is kept for familiarity: the bucket is still the stack's.
    expect(() =>
      classicDeadLetterOf(
        { deadletterRoleArn: ROLE },
        classicBase({ blobContainerName: 'dead', resourceId: '/subscriptions/x/storageAccounts/y' }),
      ),
    ).toThrow('--deadletter-role-arn: for a bucket named with --deadletter-bucket');
    expect(() =>
      classicDeadLetterOf({
        deadletterContainer: 'dead',
        deadletterBucket: BUCKET,
        deadletterExternalId: 'x',
      }),
    ).toThrow(
      '--deadletter-external-id: sent when the role in --deadletter-role-arn is assumed; give the role too',
    );
    expect(() =>
      classicDeadLetterOf({ deadletterRoleArn: false, deadletterExternalId: 'x' }, classicBase(ELSEWHERE)),
    ).toThrow('--deadletter-external-id: sent when the role is assumed, not with --no-deadletter-role-arn');
    expect(() =>
      classicDeadLetterOf({ deadletterBucket: false, deadletterExternalId: 'x' }, classicBase(ELSEWHERE)),
    ).toThrow('--deadletter-external-id: sent when the role is assumed, not with --no-deadletter-bucket');
  });

  it('are options of subscription create and update, each with its --no- form', () => {
    for (const name of ['create', 'update']) {
      const command = gridwireProgram()
        .commands.find((command) => command.name() === 'subscription')
        ?.commands.find((command) => command.name() === name);
      const flags = command?.options.map((option) => option.long);
      expect(flags).toEqual(
        expect.arrayContaining([
          '--deadletter-container',
          '--deadletter-bucket',
          '--no-deadletter-bucket',
          '--deadletter-role-arn',
          '--no-deadletter-role-arn',
          '--deadletter-external-id',
          '--no-deadletter-external-id',
        ]),
      );
    }
  });

  it('read a bucket name given on the command line as its ARN', () => {
    const command = gridwireProgram()
      .commands.find((command) => command.name() === 'subscription')
      ?.commands.find((command) => command.name() === 'create');
    const option = command?.options.find((option) => option.long === '--deadletter-bucket');
    expect(option?.parseArg?.('acme-dead-letters', undefined)).toBe(BUCKET);
  });
});
