/**
 * Connector credentials encrypted at rest with the shared AES-256-GCM cipher (src/crypto/secret-cipher.ts),
 * with the connector's id and kind as associated data. Keyed with the connector key itself, as every stored
 * connector was written with it.
 */
import { SecretCipher } from '../crypto/secret-cipher.ts';

export class CredentialCipher extends SecretCipher {}
