/**
 * Azure Blob Storage through the official SDK: block blobs uploaded in 4 MiB blocks, four in flight, from the
 * file (memory does not grow with it). Credentials: account name and key, a connection string (which also
 * carries a custom endpoint, e.g. Azurite), or an account name and a SAS token. Azure has no per-object ACL.
 *
 * The client is built from the strictly parsed credentials (azure-connection-string.ts), not by the SDK's own
 * connection-string parser, and its pipeline carries a policy that hands every request the guarded agent for
 * its scheme (after the SDK's proxy policy, so no proxy replaces it): every connection passes the address guard.
 */
import { randomUUID } from 'node:crypto';
import {
  BlobServiceClient,
  Pipeline,
  type RequestPolicy,
  type RequestPolicyFactory,
  StorageSharedKeyCredential,
  type WebResource,
} from '@azure/storage-blob';
import type { GuardedAgents } from '../../outbound/guarded-agents.ts';
import { type ExternalStore, type HostSetting, StoreError, type StoreTarget } from '../external-store.ts';
import {
  AZURE_NAME,
  type AzureCredentials,
  type AzureEndpoint,
  azureEndpoint,
} from './azure-connection-string.ts';

export type { AzureCredentials } from './azure-connection-string.ts';

const BLOCK_BYTES = 4 * 1024 ** 2;

/** A request policy of the SDK's pipeline: the guarded agent for the request's scheme, never a proxy's. */
class GuardedAgentPolicy implements RequestPolicy {
  readonly #next: RequestPolicy;
  readonly #agents: GuardedAgents;

  constructor(next: RequestPolicy, agents: GuardedAgents) {
    this.#next = next;
    this.#agents = agents;
  }

  sendRequest(request: WebResource) {
    request.agent = this.#agents.forUrl(request.url);
    request.proxySettings = undefined;
    return this.#next.sendRequest(request);
  }
}

export class AzureStore implements ExternalStore {
  readonly kind = 'azure' as const;
  readonly #credentials: AzureCredentials;
  readonly #agents: GuardedAgents;

  constructor(credentials: AzureCredentials, agents: GuardedAgents) {
    this.#credentials = credentials;
    this.#agents = agents;
  }

  #setting(): HostSetting {
    return this.#credentials.connectionString !== undefined ? 'connectionString' : 'accountName';
  }

  /** The client, from the checked credentials; any failure to build one is a credentials error, never a 500. */
  #service(): BlobServiceClient {
    try {
      return this.#client(azureEndpoint(this.#credentials));
    } catch (error) {
      const message = String((error as Error)?.message ?? error).slice(0, 300);
      throw new StoreError(AZURE_NAME, 'credentials', message, error, this.#setting());
    }
  }

  #client(endpoint: AzureEndpoint): BlobServiceClient {
    const agents = this.#agents;
    const guard: RequestPolicyFactory = { create: (next) => new GuardedAgentPolicy(next, agents) };
    const credential =
      endpoint.accountKey === undefined
        ? []
        : [new StorageSharedKeyCredential(endpoint.accountName, endpoint.accountKey)];
    // The pipeline takes the credential as one of its factories; no credential is the anonymous one (SAS).
    const pipeline = new Pipeline([...credential, guard]);
    const url = endpoint.sas === undefined ? endpoint.url : `${endpoint.url}?${endpoint.sas}`;
    return new BlobServiceClient(url, pipeline);
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
      throw this.#failure(error);
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
      throw this.#failure(error);
    }
  }

  #failure(error: unknown): StoreError {
    // The guard's refusal first: the pipeline reports it as a RestError of its own, after its retries.
    const refusal = this.#agents.refusal;
    if (refusal === undefined) return failure(error, this.#setting());
    return new StoreError(AZURE_NAME, 'refused', refusal.message, error, this.#setting());
  }
}

function failure(error: unknown, setting: HostSetting): StoreError {
  const status = (error as { statusCode?: number })?.statusCode;
  const code = String(
    (error as { code?: string; details?: { errorCode?: string } })?.details?.errorCode ??
      (error as { code?: string })?.code ??
      '',
  );
  const message = String((error as Error)?.message ?? error)
    .split('\n')[0]!
    .slice(0, 300);
  if (/ContainerNotFound/.test(code)) return new StoreError(AZURE_NAME, 'bucket', message, error);
  // Azure answers a wrong key with AuthenticationFailed; Azurite with AuthorizationFailure and this message.
  if (
    /AuthenticationFailed|InvalidAuthenticationInfo/.test(code) ||
    /failed to authenticate/i.test(message)
  ) {
    return new StoreError(AZURE_NAME, 'credentials', message, error);
  }
  if (status === 403) return new StoreError(AZURE_NAME, 'permission', message, error);
  if (status === undefined && /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN/.test(code + message)) {
    return new StoreError(AZURE_NAME, 'unreachable', message, error, setting);
  }
  return new StoreError(AZURE_NAME, 'other', message, error);
}
