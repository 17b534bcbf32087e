/**
 * A connector's kind and decrypted credentials → the store that writes with them, every connection of it
 * through `agents` (the address guard at connection time: src/outbound/guarded-agents.ts).
 */
import type { GuardedAgents } from '../outbound/guarded-agents.ts';
import { type AzureCredentials, AzureStore } from './azure-store.ts';
import type { ExternalStore, StoreKind } from './external-store.ts';
import { type GcsCredentials, GcsStore } from './gcs/gcs-store.ts';
import type { S3Credentials } from './s3/presets.ts';
import { S3Store } from './s3/s3-store.ts';

export function openStore(
  kind: StoreKind,
  credentials: Record<string, unknown>,
  agents: GuardedAgents,
): ExternalStore {
  switch (kind) {
    case 'azure':
      return new AzureStore(credentials as AzureCredentials, agents);
    case 'gcs':
      // HMAC keys go through GCS's S3-compatible XML API; a service account through the JSON API.
      if (typeof credentials.hmacAccessId === 'string')
        return new S3Store('gcs', normaliseS3('gcs', credentials), agents);
      return new GcsStore(credentials as unknown as GcsCredentials, agents);
    default:
      return new S3Store(kind, normaliseS3(kind, credentials), agents);
  }
}

/** B2 calls its pair key id and application key, Spaces key and secret, GCS HMAC access id and secret: one S3 pair. */
function normaliseS3(kind: StoreKind, c: Record<string, unknown>): S3Credentials {
  const pick = (...names: string[]) =>
    names.map((n) => c[n]).find((v) => typeof v === 'string') as string | undefined;
  const credentials: S3Credentials = {
    accessKeyId: pick('accessKeyId', 'keyId', 'key', 'hmacAccessId') ?? '',
    secretAccessKey: pick('secretAccessKey', 'applicationKey', 'secret', 'hmacSecret') ?? '',
  };
  const accountId = pick('accountId');
  const endpoint = pick('endpoint');
  if (kind === 'r2' && accountId !== undefined) credentials.accountId = accountId;
  if (endpoint !== undefined) credentials.endpoint = endpoint;
  return credentials;
}
