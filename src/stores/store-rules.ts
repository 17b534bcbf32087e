/**
 * The `store` object's rules per kind, as the interface's table gives them: which kinds take a region (and
 * B2's six), each kind's ACL default and values, S3's storage classes, the header names each kind allows,
 * and tags on S3 only. `checkStore` turns a request's `store` into a StoreTarget or one 422 entry per bad
 * field, on its exact name (`store.region`, `store.headers.Expires`).
 */
import { posix } from 'node:path';
import type { FieldError } from '../errors/catalog.ts';
import { type StoreKind, storeModuleOf } from './catalog.ts';
import type { StoreTarget } from './external-store.ts';
import { BUCKET, REGION } from './name-rules.ts';

const MAX_ENTRIES = 50;

/** The request's `store` object (schema-checked: strings and string maps) and the output's name and type. */
export function checkStore(
  kind: StoreKind,
  store: Record<string, unknown>,
  output: { name: string; contentType: string },
): { errors: FieldError[]; target: StoreTarget | undefined } {
  const { rules } = storeModuleOf(kind);
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field: `store.${field}`, message });
  const bucket = bucketOf(rules.container === true, store, fail);
  if (bucket !== undefined && !BUCKET.test(bucket))
    fail(
      rules.container === true && store.container !== undefined ? 'container' : 'bucket',
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

/** A kind that names its bucket a container (Azure) takes `container` or `bucket`: both only when they agree. */
function bucketOf(
  takesContainer: boolean,
  store: Record<string, unknown>,
  fail: (field: string, message: string) => void,
) {
  const bucket = store.bucket as string | undefined;
  const container = store.container as string | undefined;
  if (!takesContainer && container !== undefined)
    fail('container', 'is a parameter of azure stores only (use bucket)');
  if (takesContainer && bucket !== undefined && container !== undefined && bucket !== container) {
    fail('container', 'differs from bucket; give one of them');
  }
  const name = takesContainer ? (container ?? bucket) : bucket;
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
