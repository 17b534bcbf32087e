/**
 * A caller's own bucket, written through a connector: the output goes there instead of temporary storage.
 * One implementation per provider API (S3-compatible with presets for S3, R2, B2 and Spaces; Google Cloud
 * Storage; Azure Blob Storage), each in its folder with its module (store-module.ts), listed in catalog.ts. Stores know nothing of HTTP, accounts or jobs: they get credentials, a target
 * and a local file, and the guarded agents every connection of theirs goes through (src/outbound/guarded-agents.ts).
 */

/** Where and how one object is written, already checked against the kind's rules (store-rules.ts). */
export interface StoreTarget {
  bucket: string;
  /** Required by S3, B2 and Spaces (it picks the endpoint); absent for the others. */
  region: string | undefined;
  /** Object name: the request's `path` joined with the output's name as store-rules.ts decides. */
  key: string;
  contentType: string;
  acl: string | undefined;
  storageClass: string | undefined;
  metadata: Record<string, string>;
  /** Allowed headers only (Cache-Control, Content-Disposition, ...), by their canonical names. */
  headers: Record<string, string>;
  tags: Record<string, string>;
}

export interface ExternalStore {
  /** The store kind's name in the catalog (catalog.ts): `s3`, `r2`, `gcs`, `azure`, ... */
  readonly kind: string;
  /** Streams the file to the target (multipart or block uploads for large files); resolves to the object's URL. */
  write(target: StoreTarget, localPath: string, signal?: AbortSignal): Promise<{ url: string }>;
  /** Writes and deletes a small object to prove the credentials can write to `bucket`. */
  probe(bucket: string, region: string | undefined): Promise<void>;
}

/**
 * The setting a store's host comes from: a credential field, or the bucket's region (B2, Spaces and S3 put it
 * in the host name). Undefined for hosts the service fixes (Google's, S3 with a region the SDK checks).
 */
export type HostSetting =
  | 'endpoint'
  | 'apiEndpoint'
  | 'accountId'
  | 'accountName'
  | 'connectionString'
  | 'region'
  | undefined;

/** A write or probe failure: names the store and says why, never with a credential in it. */
export class StoreError extends Error {
  readonly reason: 'credentials' | 'bucket' | 'permission' | 'unreachable' | 'refused' | 'other';
  /** With `refused`: the setting that pointed the store at the refused address. */
  readonly steeredBy: HostSetting;

  /** `store`: the kind's name for people (`Cloudflare R2`), which the message starts with. */
  constructor(
    store: string,
    reason: StoreError['reason'],
    detail: string,
    cause?: unknown,
    steeredBy?: HostSetting,
  ) {
    super(`The ${store} store ${REASONS[reason]}: ${detail}`, { cause });
    this.name = 'StoreError';
    this.reason = reason;
    this.steeredBy = steeredBy;
  }
}

const REASONS: Record<StoreError['reason'], string> = {
  credentials: 'refused the credentials',
  bucket: 'has no such bucket',
  permission: 'denied the write',
  unreachable: 'could not be reached',
  refused: 'is at an address the service may not connect to',
  other: 'failed the write',
};
