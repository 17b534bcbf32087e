/**
 * Connector credentials encrypted at rest with AES-256-GCM: a fresh 12-byte nonce per record, the 16-byte
 * tag, and the connector's id and kind as associated data (a ciphertext moved to another row does not
 * decrypt). Stored as `v1.<base64 nonce|tag|ciphertext>` so the format can change without ambiguity.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class CredentialCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the connector key must be 32 bytes (AES-256)');
    this.#key = key;
  }

  encrypt(value: unknown, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  decrypt(sealed: string, context: string): unknown {
    const [version, data] = sealed.split('.');
    if (version !== VERSION || data === undefined) throw new Error('unknown credential format');
    const bytes = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(
      Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'),
    );
  }
}
