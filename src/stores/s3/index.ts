/**
 * S3 and the providers that speak its API, each a preset of the one S3-compatible store (s3-store.ts,
 * presets.ts): Amazon S3, Cloudflare R2, Backblaze B2 and DigitalOcean Spaces. Each names its credential
 * pair its own way (B2: key id and application key; Spaces: key and secret); every one takes an `endpoint`
 * override (an S3-compatible server of the operator's own; the tests' S3 server).
 */
import { type TSchema, Type } from '#typebox';
import { isDnsLabel } from '../name-rules.ts';
import {
  COMMON_HEADERS,
  credentialText,
  endpointOverride,
  maskedId,
  type StoreModule,
  storeModule,
} from '../store-module.ts';
import { S3_PRESETS, type S3Credentials, type S3Family } from './presets.ts';

/** The S3 API's pair under the names a provider gives it (`hmacAccessId`/`hmacSecret` for GCS's HMAC keys). */
export function s3Credentials(
  family: S3Family,
  credentials: Record<string, unknown>,
  [idField, secretField]: readonly [string, string],
): S3Credentials {
  const text = (name: string) => (typeof credentials[name] === 'string' ? credentials[name] : undefined);
  const pair: S3Credentials = {
    accessKeyId: text(idField) ?? '',
    secretAccessKey: text(secretField) ?? '',
  };
  const accountId = text('accountId');
  const endpoint = text('endpoint');
  if (family === 'r2' && accountId !== undefined) pair.accountId = accountId;
  if (endpoint !== undefined) pair.endpoint = endpoint;
  return pair;
}

/** One S3-family kind: its credential schema and rules over the shared store. */
function s3Kind<const K extends Exclude<S3Family, 'gcs'>>(
  kind: K,
  options: {
    keys: readonly [string, string];
    credentials: TSchema;
    rules: StoreModule['rules'];
    problems?: StoreModule['problems'];
  },
): StoreModule<K> {
  return storeModule({
    kind,
    name: S3_PRESETS[kind].name,
    credentials: options.credentials,
    rules: options.rules,
    endpoints: ['endpoint'],
    hint: (credentials) => maskedId(String(credentials[options.keys[0]] ?? '')),
    ...(options.problems === undefined ? {} : { problems: options.problems }),
    open: async (credentials, agents) => {
      const { S3Store } = await import('./s3-store.ts');
      return new S3Store(kind, s3Credentials(kind, credentials, options.keys), agents);
    },
  });
}

const PER_BUCKET_ACL = { default: 'public-read', values: ['public-read', 'private'] } as const;

export const s3Module = s3Kind('s3', {
  keys: ['accessKeyId', 'secretAccessKey'],
  credentials: Type.Object(
    {
      accessKeyId: credentialText('access key id'),
      secretAccessKey: credentialText('secret access key'),
      endpoint: endpointOverride,
    },
    { additionalProperties: false },
  ),
  rules: {
    region: 'required',
    acl: {
      default: 'public-read',
      values: [
        'private',
        'public-read',
        'public-read-write',
        'authenticated-read',
        'aws-exec-read',
        'bucket-owner-read',
        'bucket-owner-full-control',
      ],
    },
    // S3's seven classes, by the API's names.
    classes: {
      standard: 'STANDARD',
      'reduced-redundancy': 'REDUCED_REDUNDANCY',
      'standard-ia': 'STANDARD_IA',
      'onezone-ia': 'ONEZONE_IA',
      'intelligent-tiering': 'INTELLIGENT_TIERING',
      glacier: 'GLACIER',
      'deep-archive': 'DEEP_ARCHIVE',
    },
    headers: ['Expires', ...COMMON_HEADERS, 'Content-Language'],
    tags: true,
  },
});

export const r2Module = s3Kind('r2', {
  keys: ['accessKeyId', 'secretAccessKey'],
  credentials: Type.Object(
    {
      accountId: credentialText('Cloudflare account id (a DNS label: letters, digits, hyphens)'),
      accessKeyId: credentialText('access key id'),
      secretAccessKey: credentialText('secret access key'),
      endpoint: endpointOverride,
    },
    { additionalProperties: false },
  ),
  rules: { region: 'refused', acl: PER_BUCKET_ACL, headers: COMMON_HEADERS, tags: false },
  problems: (credentials) =>
    isDnsLabel(String(credentials.accountId))
      ? []
      : [
          {
            field: 'accountId',
            message: 'must be the Cloudflare account id (letters, digits, hyphens), not a host or URL',
          },
        ],
});

export const b2Module = s3Kind('b2', {
  keys: ['keyId', 'applicationKey'],
  credentials: Type.Object(
    {
      keyId: credentialText('application key id'),
      applicationKey: credentialText('application key'),
      endpoint: endpointOverride,
    },
    { additionalProperties: false },
  ),
  rules: {
    region: 'required',
    regions: ['us-west-000', 'us-west-001', 'us-west-002', 'us-east-005', 'eu-central-003', 'ca-central-001'],
    acl: PER_BUCKET_ACL,
    headers: COMMON_HEADERS,
    tags: false,
  },
});

export const spacesModule = s3Kind('spaces', {
  keys: ['key', 'secret'],
  credentials: Type.Object(
    {
      key: credentialText('Spaces access key'),
      secret: credentialText('Spaces secret key'),
      endpoint: endpointOverride,
    },
    { additionalProperties: false },
  ),
  rules: { region: 'required', acl: PER_BUCKET_ACL, headers: COMMON_HEADERS, tags: false },
});
