/**
 * The session key in a Secrets Manager secret (AWS): read through Powertools' cache for at most
 * `SESSION_KEY_CACHE_SECONDS`, so a replacement made by one management function instance is seen
 * by the others within that time; the instance that replaces it sees the new key at once.
 */

import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { newSessionKey, type SessionKeys } from '../sessions/keys';

/** Seconds an instance trusts its copy of the session key: the delay of a revocation elsewhere. */
export const SESSION_KEY_CACHE_SECONDS = 60;

export class SecretSessionKeys implements SessionKeys {
  private readonly secrets: SecretsProvider;
  private fresh = false;
  readonly revocationDelaySeconds = SESSION_KEY_CACHE_SECONDS;

  constructor(
    private readonly secretArn: string,
    private readonly client: SecretsManagerClient,
    private readonly newKey: () => string = () => newSessionKey(),
  ) {
    this.secrets = new SecretsProvider({ awsSdkV3Client: client });
  }

  async current(): Promise<string> {
    const forceFetch = this.fresh;
    this.fresh = false;
    let value: unknown;
    try {
      value = await this.secrets.get(this.secretArn, { maxAge: SESSION_KEY_CACHE_SECONDS, forceFetch });
    } catch (error) {
      throw new Error(`could not read the session key from ${this.secretArn}: ${(error as Error).message}`);
    }
    if (typeof value !== 'string' || value === '') {
      throw new Error(`the secret ${this.secretArn} must hold the session key as non-empty text`);
    }
    return value;
  }

  async replace(): Promise<void> {
    await this.client.send(
      new PutSecretValueCommand({ SecretId: this.secretArn, SecretString: this.newKey() }),
    );
    this.fresh = true;
  }
}
