/**
 * A connector's kind and decrypted credentials → the store that writes with them, every connection of it
 * through `agents` (the address guard at connection time: src/outbound/guarded-agents.ts).
 */
import type { GuardedAgents } from '../outbound/guarded-agents.ts';
import type { AzureCredentials } from './azure-store.ts';
import type { ExternalStore, StoreKind } from './external-store.ts';
import type { GcsCredentials } from './gcs/gcs-store.ts';
import type { S3Credentials } from './s3/presets.ts';

/**
 * Each store's module (with its SDK: @aws-sdk/*, @azure/storage-blob) is imported the first time a
 * connector of its kind is used, so a server whose accounts never use one does not hold them in memory.
 */
export async function openStore(
  kind: StoreKind,
  credentials: Record<string, unknown>,
  agents: GuardedAgents,
): Promise<ExternalStore> {
  switch (kind) {
    case 'azure': {
      const { AzureStore } = await import('./azure-store.ts');
      return new AzureStore(credentials as AzureCredentials, agents);
    }
    case 'gcs':
      // HMAC keys go through GCS's S3-compatible XML API; a service account through the JSON API.
      if (typeof credentials.hmacAccessId === 'string') {
        const { S3Store } = await import('./s3/s3-store.ts');
        return new S3Store('gcs', normaliseS3('gcs', credentials), agents);
      } else {
        const { GcsStore } = await import('./gcs/gcs-store.ts');
        return new GcsStore(credentials as unknown as GcsCredentials, agents);
      }
    default: {
      const { S3Store } = await import('./s3/s3-store.ts');
      return new S3Store(kind, normaliseS3(kind, credentials), agents);
    }
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
