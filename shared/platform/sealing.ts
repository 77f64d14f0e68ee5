/**
 * Sealing small secrets (secret delivery header values) for storage: AES-256-GCM with a key the
 * stack manages. The key comes from a `KeySource`: on AWS a Secrets Manager secret the stack
 * creates (read once per container), in the local stack a key file in the data directory. A
 * sealed value is `v1.<iv>.<ciphertext+tag>` (base64url); a tampered or foreign value does not
 * open. The same code seals and opens in both places; only where the key lives differs.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Where the sealing key comes from: the key's text (any high-entropy string). */
export interface KeySource {
  keyText(): Promise<string>;
}

export interface SecretOpener {
  open(sealed: string): Promise<string>;
}

export interface SecretSealer extends SecretOpener {
  seal(plain: string): Promise<string>;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key's text as a 256-bit AES key. */
const aesKey = (keyText: string): Buffer => createHash('sha256').update(keyText, 'utf8').digest();

export class AesGcmSealer implements SecretSealer {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly source: KeySource,
    private readonly random: (bytes: number) => Buffer = randomBytes,
  ) {}

  private currentKey(): Promise<Buffer> {
    if (this.key === undefined) {
      this.key = this.source.keyText().then(aesKey);
      // A failed read is not kept: the next use tries again.
      this.key.catch(() => {
        this.key = undefined;
      });
    }
    return this.key;
  }

  async seal(plain: string): Promise<string> {
    const key = await this.currentKey();
    const iv = this.random(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  async open(sealed: string): Promise<string> {
    const [version, ivText, bodyText, ...rest] = sealed.split('.');
    if (version !== VERSION || ivText === undefined || bodyText === undefined || rest.length > 0) {
      throw new Error('not a sealed value of this version');
    }
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error('a sealed value is malformed');
    const decipher = createDecipheriv('aes-256-gcm', await this.currentKey(), iv);
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    // Throws when the value was altered or sealed with another key.
    return Buffer.concat([
      decipher.update(body.subarray(0, body.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}

/** A key given as text (the local stack's key file, or tests). */
export const keyText = (text: string): KeySource => ({ keyText: async () => text });
