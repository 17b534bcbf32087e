/**
 * The `store` object's rules per kind, as the interface's table gives them: which kinds take a region (and
 * B2's six), each kind's ACL default and values, S3's storage classes, the header names each kind allows,
 * and tags on S3 only. `checkStore` turns a request's `store` into a StoreTarget or one 422 entry per bad
 * field, on its exact name (`store.region`, `store.headers.Expires`).
 */
import { posix } from 'node:path';
import type { FieldError } from '../errors/catalog.ts';
import type { StoreKind, StoreTarget } from './external-store.ts';
import { BUCKET, REGION } from './name-rules.ts';

interface KindRules {
  region: 'required' | 'refused';
  regions?: readonly string[];
  acl: { default: string | undefined; values?: readonly string[] };
  classes?: Record<string, string>;
  headers: readonly string[];
  tags: boolean;
}

const COMMON_HEADERS = ['Cache-Control', 'Content-Type', 'Content-Encoding', 'Content-Disposition'];

/** S3's seven classes, by the API's names. */
const S3_CLASSES: Record<string, string> = {
  standard: 'STANDARD',
  'reduced-redundancy': 'REDUCED_REDUNDANCY',
  'standard-ia': 'STANDARD_IA',
  'onezone-ia': 'ONEZONE_IA',
  'intelligent-tiering': 'INTELLIGENT_TIERING',
  glacier: 'GLACIER',
  'deep-archive': 'DEEP_ARCHIVE',
};

export const STORE_RULES: Record<StoreKind, KindRules> = {
  s3: {
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
    classes: S3_CLASSES,
    headers: ['Expires', ...COMMON_HEADERS, 'Content-Language'],
    tags: true,
  },
  gcs: {
    region: 'refused',
    acl: {
      default: 'publicRead',
      values: [
        'authenticatedRead',
        'bucketOwnerFullControl',
        'bucketOwnerRead',
        'private',
        'projectPrivate',
        'publicRead',
      ],
    },
    headers: [...COMMON_HEADERS, 'Content-Language'],
    tags: false,
  },
  r2: {
    region: 'refused',
    acl: { default: 'public-read', values: ['public-read', 'private'] },
    headers: COMMON_HEADERS,
    tags: false,
  },
  b2: {
    region: 'required',
    regions: ['us-west-000', 'us-west-001', 'us-west-002', 'us-east-005', 'eu-central-003', 'ca-central-001'],
    acl: { default: 'public-read', values: ['public-read', 'private'] },
    headers: COMMON_HEADERS,
    tags: false,
  },
  spaces: {
    region: 'required',
    acl: { default: 'public-read', values: ['public-read', 'private'] },
    headers: COMMON_HEADERS,
    tags: false,
  },
  azure: {
    region: 'refused',
    acl: { default: undefined },
    headers: [...COMMON_HEADERS, 'Content-Language'],
    tags: false,
  },
};

const MAX_ENTRIES = 50;

/** The request's `store` object (schema-checked: strings and string maps) and the output's name and type. */
export function checkStore(
  kind: StoreKind,
  store: Record<string, unknown>,
  output: { name: string; contentType: string },
): { errors: FieldError[]; target: StoreTarget | undefined } {
  const rules = STORE_RULES[kind];
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field: `store.${field}`, message });
  const bucket = bucketOf(kind, store, fail);
  if (bucket !== undefined && !BUCKET.test(bucket))
    fail(
      kind === 'azure' && store.container !== undefined ? 'container' : 'bucket',
      'is not a valid bucket name',
    );
  const region = store.region as string | undefined;
  if (rules.region === 'refused' && region !== undefined)
    fail('region', `is not a parameter of ${kind} stores`);
  if (rules.region === 'required') {
    if (region === undefined) fail('region', `is required for ${kind} stores`);
    else if (rules.regions !== undefined && !rules.regions.includes(region))
      fail('region', `must be one of ${rules.regions.join(', ')}`);
    else if (!REGION.test(region)) fail('region', 'is not a valid region name');
  }
  const path = (store.path as string | undefined) ?? '';
  if (path.startsWith('/')) fail('path', 'must not start with a slash');
  if (path.split('/').some((part) => part === '..' || part === '.'))
    fail('path', 'must not contain . or .. segments');
  const acl = store.acl as string | undefined;
  if (acl !== undefined && rules.acl.values === undefined)
    fail('acl', `is not a parameter of ${kind} stores`);
  if (acl !== undefined && rules.acl.values !== undefined && !rules.acl.values.includes(acl))
    fail('acl', `must be one of ${rules.acl.values.join(', ')}`);
  const storageClass = store.class as string | undefined;
  if (storageClass !== undefined && rules.classes === undefined)
    fail('class', `is a parameter of s3 stores only`);
  if (storageClass !== undefined && rules.classes !== undefined && !(storageClass in rules.classes))
    fail('class', `must be one of ${Object.keys(rules.classes).join(', ')}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of entries(store.headers)) {
    const canonical = rules.headers.find((allowed) => allowed.toLowerCase() === name.toLowerCase());
    if (canonical === undefined)
      fail(`headers.${name}`, `is not allowed for ${kind} stores (allowed: ${rules.headers.join(', ')})`);
    else headers[canonical] = value;
  }
  const tags = entries(store.tags);
  if (tags.length > 0 && !rules.tags) fail('tags', 'is a parameter of s3 stores only');
  if (tags.length > 10) fail('tags', 'takes at most 10 tags');
  const metadata = entries(store.metadata);
  if (metadata.length > MAX_ENTRIES) fail('metadata', `takes at most ${MAX_ENTRIES} entries`);
  for (const [name] of metadata)
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(name))
      fail(`metadata.${name}`, 'names take letters, digits, - and _ only');
  if (errors.length > 0 || bucket === undefined) return { errors, target: undefined };
  return {
    errors,
    target: {
      bucket,
      region,
      key: objectKey(path, output.name),
      contentType: headers['Content-Type'] ?? output.contentType,
      acl: acl ?? rules.acl.default,
      storageClass: rules.classes === undefined ? undefined : rules.classes[storageClass ?? 'standard'],
      metadata: Object.fromEntries(metadata),
      headers,
      tags: Object.fromEntries(tags),
    },
  };
}

/**
 * The bucket and region a connector's probe writes to (creating or testing a connector): names, as in `store`,
 * since the S3-family stores put them in a host name or path.
 */
export function checkProbeTarget(bucket: string, region: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (!BUCKET.test(bucket)) errors.push({ field: 'bucket', message: 'is not a valid bucket name' });
  if (region !== undefined && !REGION.test(region))
    errors.push({
      field: 'region',
      message: 'is not a valid region name (lower-case letters, digits, hyphens)',
    });
  return errors;
}

/** Azure takes `container` or `bucket` (decisions.md): both only when they agree. */
function bucketOf(
  kind: StoreKind,
  store: Record<string, unknown>,
  fail: (field: string, message: string) => void,
) {
  const bucket = store.bucket as string | undefined;
  const container = store.container as string | undefined;
  if (kind !== 'azure' && container !== undefined)
    fail('container', 'is a parameter of azure stores only (use bucket)');
  if (kind === 'azure' && bucket !== undefined && container !== undefined && bucket !== container) {
    fail('container', 'differs from bucket; give one of them');
  }
  const name = kind === 'azure' ? (container ?? bucket) : bucket;
  if (name === undefined) fail('bucket', 'is required');
  return name;
}

/**
 * `path` names the object; a path ending in `/` (or none) is a folder that gets the output's name appended:
 * `exports/` + `photo.webp` → `exports/photo.webp`, `exports/cover.webp` stays as given.
 */
export function objectKey(path: string, outputName: string): string {
  if (path === '' || path.endsWith('/')) return posix.join(path, outputName);
  return path;
}

function entries(value: unknown): [string, string][] {
  return value !== null && typeof value === 'object' ? Object.entries(value as Record<string, string>) : [];
}
