/**
 * Azure Blob Storage through the official SDK: block blobs uploaded in 4 MiB blocks, four in flight, from the
 * file (memory does not grow with it). Credentials: account name and key, a connection string (which also
 * carries a custom endpoint, e.g. Azurite), or an account name and a SAS token. Azure has no per-object ACL.
 */
import { randomUUID } from 'node:crypto';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { type ExternalStore, StoreError, type StoreTarget } from './external-store.ts';

export interface AzureCredentials {
  accountName?: string;
  accountKey?: string;
  connectionString?: string;
  sasToken?: string;
}

const BLOCK_BYTES = 4 * 1024 ** 2;

export class AzureStore implements ExternalStore {
  readonly kind = 'azure' as const;
  readonly #credentials: AzureCredentials;

  constructor(credentials: AzureCredentials) {
    this.#credentials = credentials;
  }

  #service(): BlobServiceClient {
    const c = this.#credentials;
    if (c.connectionString !== undefined) return BlobServiceClient.fromConnectionString(c.connectionString);
    const url = `https://${c.accountName}.blob.core.windows.net`;
    if (c.sasToken !== undefined) return new BlobServiceClient(`${url}?${c.sasToken.replace(/^\?/, '')}`);
    return new BlobServiceClient(
      url,
      new StorageSharedKeyCredential(c.accountName ?? '', c.accountKey ?? ''),
    );
  }

  async write(target: StoreTarget, localPath: string, signal?: AbortSignal): Promise<{ url: string }> {
    const blob = this.#service().getContainerClient(target.bucket).getBlockBlobClient(target.key);
    const h = target.headers;
    try {
      await blob.uploadFile(localPath, {
        blockSize: BLOCK_BYTES,
        // Four 4 MiB blocks in flight (16 MiB): as fast as the SDK's default here, with a fixed memory bound.
        concurrency: 4,
        abortSignal: signal,
        metadata: target.metadata,
        blobHTTPHeaders: {
          blobContentType: target.contentType,
          blobCacheControl: h['Cache-Control'],
          blobContentEncoding: h['Content-Encoding'],
          blobContentLanguage: h['Content-Language'],
          blobContentDisposition: h['Content-Disposition'],
        },
      });
    } catch (error) {
      throw failure(error);
    }
    // The URL without any SAS query: the object's address, not a credential.
    return { url: blob.url.split('?')[0]! };
  }

  async probe(bucket: string): Promise<void> {
    const blob = this.#service()
      .getContainerClient(bucket)
      .getBlockBlobClient(`.presso-probe-${randomUUID()}`);
    try {
      await blob.upload('presso connector probe', 22);
      await blob.delete();
    } catch (error) {
      throw failure(error);
    }
  }
}

function failure(error: unknown): StoreError {
  const status = (error as { statusCode?: number })?.statusCode;
  const code = String(
    (error as { code?: string; details?: { errorCode?: string } })?.details?.errorCode ??
      (error as { code?: string })?.code ??
      '',
  );
  const message = String((error as Error)?.message ?? error)
    .split('\n')[0]!
    .slice(0, 300);
  if (/ContainerNotFound/.test(code)) return new StoreError('azure', 'bucket', message, error);
  // Azure answers a wrong key with AuthenticationFailed; Azurite with AuthorizationFailure and this message.
  if (
    /AuthenticationFailed|InvalidAuthenticationInfo/.test(code) ||
    /failed to authenticate/i.test(message)
  ) {
    return new StoreError('azure', 'credentials', message, error);
  }
  if (status === 403) return new StoreError('azure', 'permission', message, error);
  if (status === undefined && /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN/.test(code + message)) {
    return new StoreError('azure', 'unreachable', message, error);
  }
  return new StoreError('azure', 'other', message, error);
}
