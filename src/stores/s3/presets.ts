/**
 * R2, B2 and Spaces speak the S3 API: each is a preset of the one S3-compatible store (s3-store.ts), that
 * is its endpoint, its public URL form, and whether it has per-object ACLs. Every preset takes an `endpoint`
 * override (S3-compatible gateways, and the tests' S3 server), which switches to path-style addressing.
 * The values a preset puts in a host name (R2's account id, the region) are checked to be names first.
 */

import { withoutTrailingSlashes } from '../../config/text.ts';
import type { HostSetting } from '../external-store.ts';
import { endpointProblem, isDnsLabel, REGION } from '../name-rules.ts';

/** The S3 API's users: S3 and its presets, and GCS with HMAC keys (its XML API is S3-compatible). */
export type S3Family = 's3' | 'r2' | 'b2' | 'spaces' | 'gcs';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** R2's account id (its endpoint is per account). */
  accountId?: string;
  /** Overrides the provider's endpoint: an S3-compatible server of the operator's own. */
  endpoint?: string;
}

export interface S3Preset {
  /** The provider's name for people, in store errors. */
  name: string;
  /** The API endpoint for a bucket's region; undefined lets the AWS SDK pick (S3). */
  endpoint(credentials: S3Credentials, region: string | undefined): string | undefined;
  /** The region the request is signed for. */
  signingRegion(region: string | undefined): string;
  /** The object's usual public URL. */
  url(credentials: S3Credentials, bucket: string, region: string | undefined, key: string): string;
  /** Per-object ACLs exist (x-amz-acl on PutObject): S3, Spaces, GCS; R2 and B2 set access per bucket. */
  objectAcl: boolean;
  /** The canned-ACL name of the request's `acl` where the kind names its ACLs otherwise (GCS: publicRead). */
  cannedAcl?: (acl: string) => string;
}

const encodeKey = (key: string) => key.split('/').map(encodeURIComponent).join('/');

export const S3_PRESETS: Record<S3Family, S3Preset> = {
  s3: {
    name: 'Amazon S3',
    endpoint: (c) => c.endpoint,
    signingRegion: (region) => region ?? 'us-east-1',
    url: (_, bucket, region, key) =>
      `https://${bucket}.s3.${region ?? 'us-east-1'}.amazonaws.com/${encodeKey(key)}`,
    objectAcl: true,
  },
  r2: {
    name: 'Cloudflare R2',
    endpoint: (c) => c.endpoint ?? `https://${c.accountId}.r2.cloudflarestorage.com`,
    signingRegion: () => 'auto',
    url: (c, bucket, _, key) => `https://${c.accountId}.r2.cloudflarestorage.com/${bucket}/${encodeKey(key)}`,
    objectAcl: false,
  },
  b2: {
    name: 'Backblaze B2',
    endpoint: (c, region) => c.endpoint ?? `https://s3.${region}.backblazeb2.com`,
    signingRegion: (region) => region ?? 'us-west-000',
    url: (_, bucket, region, key) => `https://${bucket}.s3.${region}.backblazeb2.com/${encodeKey(key)}`,
    objectAcl: false,
  },
  spaces: {
    name: 'DigitalOcean Spaces',
    endpoint: (c, region) => c.endpoint ?? `https://${region}.digitaloceanspaces.com`,
    signingRegion: (region) => region ?? 'us-east-1',
    url: (_, bucket, region, key) => `https://${bucket}.${region}.digitaloceanspaces.com/${encodeKey(key)}`,
    objectAcl: true,
  },
  gcs: {
    name: 'Google Cloud Storage',
    endpoint: (c) => c.endpoint ?? 'https://storage.googleapis.com',
    signingRegion: () => 'auto',
    url: (_, bucket, __, key) => `https://storage.googleapis.com/${bucket}/${encodeKey(key)}`,
    objectAcl: true,
    // GCS's predefined ACL names (the store object's) in the XML API's canned form: publicRead → public-read.
    cannedAcl: (acl) => acl.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`),
  },
};

/**
 * Why these credentials cannot make an endpoint, and the setting at fault: an endpoint that is not a plain
 * http(s) URL, an R2 account id or a region that is not a name (`127.0.0.1:80/x`, `x@host` would change the host).
 */
export function credentialsProblem(
  family: S3Family,
  credentials: S3Credentials,
  region: string | undefined,
): { message: string; setting: HostSetting } | undefined {
  if (credentials.endpoint !== undefined) {
    const problem = endpointProblem(credentials.endpoint);
    return problem === undefined ? undefined : { message: `endpoint ${problem}`, setting: 'endpoint' };
  }
  if (family === 'r2' && !isDnsLabel(credentials.accountId ?? ''))
    return { message: 'accountId must be the account id (letters, digits, hyphens)', setting: 'accountId' };
  if (region !== undefined && !REGION.test(region))
    return {
      message: 'region must be a region name (lower-case letters, digits, hyphens)',
      setting: 'region',
    };
  return undefined;
}

/** With an endpoint override, the URL is path-style on that endpoint. */
export function objectUrl(
  family: S3Family,
  credentials: S3Credentials,
  bucket: string,
  region: string | undefined,
  key: string,
) {
  if (credentials.endpoint !== undefined)
    return `${withoutTrailingSlashes(credentials.endpoint)}/${bucket}/${encodeKey(key)}`;
  return S3_PRESETS[family].url(credentials, bucket, region, key);
}
