/**
 * Secrets encrypted at rest with AES-256-GCM: a fresh 12-byte nonce per value, the 16-byte tag, and a
 * context as associated data (the row the value belongs to), so a ciphertext moved to another row does not
 * decrypt. Stored as `v1.<base64 nonce|tag|ciphertext>` so the format can change without ambiguity.
 *
 * One key serves several purposes (connector credentials, the secrets of running jobs): `forPurpose` derives a
 * key of its own for each (HKDF-SHA256), so a value sealed for one purpose never opens as another's.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes (AES-256)');
    this.#key = key;
  }

  /** A cipher whose key is derived from `key` for `purpose` alone. */
  static forPurpose(key: Buffer, purpose: string): SecretCipher {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes (AES-256)');
    return new SecretCipher(Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `presso ${purpose}`, 32)));
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
    if (version !== VERSION || data === undefined) throw new Error('unknown secret format');
    const bytes = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(
      Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'),
    );
  }
}
