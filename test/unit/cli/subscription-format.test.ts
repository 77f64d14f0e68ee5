import { formatSubscription, type SubscriptionDocument } from '../../../cli/subscription/format';
import { signingDocument } from '../../../shared/management/resource-documents';

/** A webhook subscription document with `signing` as the API shows it (or none). */
const withSigning = (signing?: ReturnType<typeof signingDocument>): SubscriptionDocument => ({
  name: 'orders-hook',
  properties: {
    provisioningState: 'Succeeded',
    destination: {
      properties: {
        endpointBaseUrl: 'https://hooks.example.com/orders',
        ...(signing === undefined ? {} : { signing }),
      },
    },
  },
});

const signingLineOf = (text: string) => text.split('\n').find((line) => line.startsWith('signing:'));

describe('subscription show', () => {
  it('says signing is on, with the scheme and since when its secret is in use', () => {
    const text = formatSubscription(
      withSigning(
        signingDocument({ secrets: [{ sealed: 'sealed-secret', createdAt: Date.UTC(2026, 10, 1) }] }),
      ),
    );
    expect(signingLineOf(text)).toBe(
      'signing:     on, Standard Webhooks v1 (shared secret), secret of 2026-11-01T00:00:00.000Z',
    );
  });

  it('names an asymmetric key and the earlier secrets still honoured after a rotation', () => {
    const text = formatSubscription(
      withSigning(
        signingDocument({
          secrets: [
            { sealed: 'sealed-key', publicKey: 'whpk_abc', createdAt: Date.UTC(2026, 11, 1) },
            { sealed: 'sealed-old', createdAt: Date.UTC(2026, 10, 1), expiresAt: Date.UTC(2026, 11, 2) },
          ],
        }),
      ),
    );
    expect(signingLineOf(text)).toContain(
      'on, Standard Webhooks v1a (asymmetric, ed25519), secret of 2026-12-01T00:00:00.000Z; 1 earlier secret honoured until 2026-12-02T00:00:00.000Z',
    );
  });

  it('prints no signing line when requests are not signed', () => {
    const text = formatSubscription(withSigning());
    expect(text).toContain('endpoint:');
    expect(signingLineOf(text)).toBeUndefined();
  });
});

/** A subscription document dead-lettering as `properties` says, classic or namespace. */
const withDeadLetters = (
  properties: Record<string, string>,
  kind: 'classic' | 'namespace' = 'classic',
): SubscriptionDocument => {
  const deadLetterDestination = { properties };
  return {
    name: 'orders-hook',
    properties:
      kind === 'classic'
        ? {
            destination: { properties: { endpointBaseUrl: 'https://hooks.example.com/orders' } },
            deadLetterDestination,
          }
        : {
            deliveryConfiguration: {
              push: {
                destination: { properties: { endpointBaseUrl: 'https://hooks.example.com/orders' } },
                deadLetterDestinationWithResourceIdentity: { deadLetterDestination },
              },
            },
          },
  };
};

const deadLettersLineOf = (text: string) =>
  text
    .split('\n')
    .find((line) => line.startsWith('dead letters:'))
    ?.replace(/^dead letters:\s+/, '');

describe('subscription show: where dead letters go', () => {
  it("names the container in the stack's bucket", () => {
    expect(deadLettersLineOf(formatSubscription(withDeadLetters({ blobContainerName: 'dead' })))).toBe(
      "container dead in the stack's bucket",
    );
    // A resource id that is no bucket ARN is kept for familiarity: the bucket is the stack's.
    expect(
      deadLettersLineOf(
        formatSubscription(
          withDeadLetters({ blobContainerName: 'dead', resourceId: '/subscriptions/x/storageAccounts/y' }),
        ),
      ),
    ).toBe("container dead in the stack's bucket");
  });

  it('names the bucket, and the role and external id it is written through', () => {
    expect(
      deadLettersLineOf(
        formatSubscription(
          withDeadLetters(
            { blobContainerName: 'dead', resourceId: 'arn:aws:s3:::acme-dead-letters' },
            'namespace',
          ),
        ),
      ),
    ).toBe('container dead in bucket acme-dead-letters');
    expect(
      deadLettersLineOf(
        formatSubscription(
          withDeadLetters({
            blobContainerName: 'dead',
            resourceId: 'arn:aws:s3:::acme-dead-letters',
            roleArn: 'arn:aws:iam::210987654321:role/gridwire-dead-letters',
            externalId: 'gridwire-dl',
          }),
        ),
      ),
    ).toBe(
      'container dead in bucket acme-dead-letters, through role arn:aws:iam::210987654321:role/gridwire-dead-letters (external id gridwire-dl)',
    );
  });

  it('prints no dead-letters line when there is no dead-letter destination', () => {
    expect(deadLettersLineOf(formatSubscription(withSigning()))).toBeUndefined();
  });
});
