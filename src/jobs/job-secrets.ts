/**
 * The caller's secrets in a request: credentials for a fetch (`headers`) and passwords of encrypted inputs
 * (`archive.password`, `pdf.password`). Which fields they are is declared once, on the request's JSON Schema,
 * with the standard `writeOnly` annotation (a value the client sends and is never shown back): the request
 * parser derives their paths from the schema, so a new parameter that holds a secret is only annotated.
 *
 * A job keeps them apart from its parameters. The job store seals them (AES-256-GCM, the job id as associated
 * data, a key derived for this purpose alone) while the job may still run, including after a restart, and
 * wipes them when the job ends; the runner opens them for the run, and nothing else ever sees them.
 */
import { SecretCipher } from '../crypto/secret-cipher.ts';
import type { Job } from './job.ts';

/** The secret fields of a request body, at their places: `{ headers: {...}, archive: { password } }`. */
export type RequestSecrets = { [key: string]: unknown };

/**
 * Secrets of a job queued before they were sealed, moved out of its parameters in plain JSON by the migration
 * that added sealing (persistence/*\/migrations.ts). Only jobs that had not ended then carry them; they are
 * wiped like sealed ones when the job ends.
 */
const LEGACY_PREFIX = 'legacy.';

type Json = { [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Paths of the fields `schema` marks `writeOnly`, through nested object properties. */
export function secretPaths(schema: unknown, at: readonly string[] = []): string[][] {
  if (!isObject(schema)) return [];
  if (schema.writeOnly === true) return [[...at]];
  if (!isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([key, property]) => secretPaths(property, [...at, key]));
}

function valueAt(body: Json, path: readonly string[]): unknown {
  let value: unknown = body;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return value;
}

/** A copy of `body` without the value at `path` (the objects on the way are copied, never changed). */
function without(body: Json, path: readonly string[]): Json {
  const [key, ...rest] = path;
  if (key === undefined || !(key in body)) return body;
  const copy = { ...body };
  if (rest.length === 0) delete copy[key];
  else if (isObject(body[key])) copy[key] = without(body[key], rest);
  return copy;
}

/** A copy of `body` with `value` at `path`. */
function withValue(body: Json, path: readonly string[], value: unknown): Json {
  const [key, ...rest] = path;
  if (key === undefined) return body;
  if (rest.length === 0) return { ...body, [key]: value };
  const inner = isObject(body[key]) ? body[key] : {};
  return { ...body, [key]: withValue(inner, rest, value) };
}

/** `body` without its secret fields, and those fields apart (undefined when it holds none). */
export function takeSecrets(
  body: Json,
  paths: readonly (readonly string[])[],
): { rest: Json; secrets: RequestSecrets | undefined } {
  let rest = body;
  let secrets: RequestSecrets | undefined;
  for (const path of paths) {
    const value = valueAt(body, path);
    if (value === undefined) continue;
    rest = without(rest, path);
    secrets = withValue(secrets ?? {}, path, value);
  }
  return { rest, secrets };
}

/** `body` with `secrets` merged in at their places; empty branches (of a legacy row) add nothing. */
function merge(body: Json, secrets: Json): Json {
  let merged = body;
  for (const [key, value] of Object.entries(secrets)) {
    if (isObject(value)) {
      if (Object.keys(value).length === 0) continue;
      merged = { ...merged, [key]: merge(isObject(merged[key]) ? merged[key] : {}, value) };
    } else if (value !== undefined && value !== null) {
      merged = { ...merged, [key]: value };
    }
  }
  return merged;
}

/**
 * The job as its run needs it: the secrets back where the request had them. `headers` belongs to the fetch's
 * source (as the request parser maps the body); every other secret is in a parameter namespace.
 */
export function revealSecrets(job: Job, secrets: RequestSecrets): Job {
  const { headers, ...params } = secrets;
  const source =
    job.source.type === 'fetch' && isObject(headers)
      ? { ...job.source, headers: merge(job.source.headers ?? {}, headers) as Record<string, string> }
      : job.source;
  return { ...job, source, params: merge(job.params, params) };
}

/** Seals and opens the secrets of jobs: the job stores seal, the runner opens. */
export class JobSecretBox {
  readonly #cipher: SecretCipher;

  /** `key`: the deployment's 32-byte encryption key (the connector key); a key of its own is derived from it. */
  constructor(key: Buffer) {
    this.#cipher = SecretCipher.forPurpose(key, 'job secrets');
  }

  seal(jobId: string, secrets: RequestSecrets | undefined): string | undefined {
    if (secrets === undefined || Object.keys(secrets).length === 0) return undefined;
    return this.#cipher.encrypt(secrets, context(jobId));
  }

  /** Throws when `sealed` was not sealed for this job with this key. */
  open(jobId: string, sealed: string): RequestSecrets {
    if (sealed.startsWith(LEGACY_PREFIX))
      return JSON.parse(sealed.slice(LEGACY_PREFIX.length)) as RequestSecrets;
    const secrets = this.#cipher.decrypt(sealed, context(jobId));
    if (!isObject(secrets)) throw new Error('sealed job secrets are not an object');
    return secrets;
  }
}

const context = (jobId: string) => `job:${jobId}`;
