/**
 * The S3-compatible store (AWS S3, and R2, B2, Spaces and GCS with HMAC keys through their presets): the AWS SDK v3 client,
 * with lib-storage's multipart upload streaming the file in 8 MiB parts (two in flight), so memory does not
 * grow with the file. The ACL is sent on the PutObject itself (never a separate PutObjectAcl call). Every
 * connection goes through the guarded agents (the SDK's Node handler is given them), whatever URL the SDK's
 * endpoint rules resolve.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  DeleteObjectCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { GuardedAgents } from '../../outbound/guarded-agents.ts';
import { type ExternalStore, type HostSetting, StoreError, type StoreTarget } from '../external-store.ts';
import { credentialsProblem, objectUrl, S3_PRESETS, type S3Credentials, type S3Family } from './presets.ts';

const PART_BYTES = 8 * 1024 ** 2;

export class S3Store implements ExternalStore {
  readonly kind: S3Family;
  readonly #credentials: S3Credentials;
  readonly #agents: GuardedAgents;

  constructor(kind: S3Family, credentials: S3Credentials, agents: GuardedAgents) {
    this.kind = kind;
    this.#credentials = credentials;
    this.#agents = agents;
  }

  #client(region: string | undefined): S3Client {
    const problem = credentialsProblem(this.kind, this.#credentials, region);
    if (problem !== undefined)
      throw new StoreError(
        S3_PRESETS[this.kind].name,
        'credentials',
        problem.message,
        undefined,
        problem.setting,
      );
    const preset = S3_PRESETS[this.kind];
    const endpoint = preset.endpoint(this.#credentials, region);
    const config: S3ClientConfig = {
      region: preset.signingRegion(region),
      credentials: {
        accessKeyId: this.#credentials.accessKeyId,
        secretAccessKey: this.#credentials.secretAccessKey,
      },
      // Checksums only where the API requires them: S3-compatible providers reject the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // The SDK's Node handler with the guarded agents: no socket is opened without the address guard.
      requestHandler: {
        httpAgent: this.#agents.http,
        httpsAgent: this.#agents.https,
        connectionTimeout: this.#agents.connectTimeoutMs,
      },
    };
    if (endpoint !== undefined) {
      config.endpoint = endpoint;
      config.forcePathStyle =
        this.#credentials.endpoint !== undefined || this.kind === 'r2' || this.kind === 'gcs';
    }
    return new S3Client(config);
  }

  async write(target: StoreTarget, localPath: string, signal?: AbortSignal): Promise<{ url: string }> {
    const client = this.#client(target.region);
    const h = target.headers;
    const upload = new Upload({
      client,
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
      params: {
        Bucket: target.bucket,
        Key: target.key,
        Body: createReadStream(localPath),
        ContentType: target.contentType,
        CacheControl: h['Cache-Control'],
        ContentDisposition: h['Content-Disposition'],
        ContentEncoding: h['Content-Encoding'],
        ContentLanguage: h['Content-Language'],
        Expires: h.Expires === undefined ? undefined : new Date(h.Expires),
        Metadata: target.metadata,
        StorageClass: target.storageClass as never,
        ACL: this.#acl(target.acl) as never,
        Tagging:
          Object.keys(target.tags).length === 0 ? undefined : new URLSearchParams(target.tags).toString(),
      },
    });
    const abort = () => void upload.abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await upload.done();
      // Tags go on with PutObjectTagging, the one way that works for single and multipart uploads alike.
      if (Object.keys(target.tags).length > 0) {
        const TagSet = Object.entries(target.tags).map(([Key, Value]) => ({ Key, Value }));
        await client.send(
          new PutObjectTaggingCommand({ Bucket: target.bucket, Key: target.key, Tagging: { TagSet } }),
        );
      }
    } catch (error) {
      throw this.#failure(error);
    } finally {
      signal?.removeEventListener('abort', abort);
      client.destroy();
    }
    return { url: objectUrl(this.kind, this.#credentials, target.bucket, target.region, target.key) };
  }

  #acl(acl: string | undefined): string | undefined {
    const preset = S3_PRESETS[this.kind];
    if (!preset.objectAcl || acl === undefined) return undefined;
    return preset.cannedAcl?.(acl) ?? acl;
  }

  async probe(bucket: string, region: string | undefined): Promise<void> {
    const client = this.#client(region);
    const key = `.presso-probe-${randomUUID()}`;
    try {
      const acl = S3_PRESETS[this.kind].objectAcl ? 'private' : undefined;
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'presso connector probe', ACL: acl }),
      );
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      throw this.#failure(error);
    } finally {
      client.destroy();
    }
  }

  /** The setting the host comes from: the endpoint override, R2's account id, or the region in the host. */
  #hostSetting(): HostSetting {
    if (this.#credentials.endpoint !== undefined) return 'endpoint';
    if (this.kind === 'r2') return 'accountId';
    return this.kind === 'gcs' ? undefined : 'region';
  }

  /** The SDK's error names mapped to a reason; its message never carries the secret. */
  #failure(error: unknown): StoreError {
    // The guard's refusal first: the SDK reports it wrapped, or as the failure of its last retry.
    const refusal = this.#agents.refusal;
    if (refusal !== undefined)
      return new StoreError(
        S3_PRESETS[this.kind].name,
        'refused',
        refusal.message,
        error,
        this.#hostSetting(),
      );
    if (error instanceof StoreError) return error;
    const name = (error as { name?: string; Code?: string })?.name ?? '';
    const message = String((error as Error)?.message ?? error).slice(0, 300);
    if (/InvalidAccessKeyId|SignatureDoesNotMatch|InvalidToken|Unauthorized/.test(name)) {
      return new StoreError(S3_PRESETS[this.kind].name, 'credentials', message, error);
    }
    if (/NoSuchBucket/.test(name))
      return new StoreError(S3_PRESETS[this.kind].name, 'bucket', message, error);
    if (/AccessDenied|Forbidden|AllAccessDisabled/.test(name))
      return new StoreError(S3_PRESETS[this.kind].name, 'permission', message, error);
    const code = (error as { code?: string })?.code ?? '';
    if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|ECONNRESET/.test(code + name + message)) {
      return new StoreError(S3_PRESETS[this.kind].name, 'unreachable', message, error, this.#hostSetting());
    }
    return new StoreError(S3_PRESETS[this.kind].name, 'other', message, error);
  }
}
