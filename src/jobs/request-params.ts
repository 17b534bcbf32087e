/**
 * The processing request: parameters per kind, plus the transport-level keys (`metadata`, `async`,
 * `webhook`, `store`). Its JSON Schema is built from the registered processors, so a new processor
 * extends the API, the validation and the OpenAPI document at once.
 */
import { type TSchema, Type } from '#typebox';
import { type FieldError, ValidationError } from '../errors/catalog.ts';
import { FILE_KINDS } from '../media/formats.ts';
import type { ProcessorRegistry } from '../processors/registry.ts';
import { compile, toFieldErrors } from '../validation/schema-validator.ts';
import type { JobParams } from './job.ts';
import { type RequestSecrets, secretPaths, takeSecrets } from './job-secrets.ts';

export interface ParsedRequest {
  /** The parameters without the secret fields, which are in `secrets`. */
  params: JobParams;
  webhookUrl: string | undefined;
  forceAsync: boolean;
  /** The fields the schema marks `writeOnly` (fetch headers, passwords), at their places in the body. */
  secrets: RequestSecrets | undefined;
}

export interface ParsedFetchRequest extends ParsedRequest {
  url: string;
}

function commonProperties(registry: ProcessorRegistry): Record<string, TSchema> {
  const namespaces: Record<string, TSchema> = {};
  for (const kind of FILE_KINDS) {
    const processor = registry.forKind(kind);
    namespaces[kind] = Type.Optional(
      processor?.paramsSchema ??
        Type.Object({}, { description: `Parameters for ${kind} files (no ${kind} processor is installed).` }),
    );
  }
  return {
    ...namespaces,
    metadata: Type.Optional(
      Type.Boolean({ description: 'Add a metadata object (dimensions, EXIF, ...) to the result.' }),
    ),
    async: Type.Optional(
      Type.Boolean({ description: 'Answer 202 at once and run the job in the background.' }),
    ),
    webhook: Type.Optional(
      Type.Object(
        {
          url: Type.String({
            minLength: 1,
            maxLength: 2048,
            description: 'URL notified when the job finishes.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    store: Type.Optional(STORE_SCHEMA),
  };
}

const text = (description: string, maxLength = 1024) => Type.String({ minLength: 1, maxLength, description });
const stringMap = (description: string) =>
  Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 2048 }), { description });

/**
 * The `store` object (the interface's store table). Which fields a kind takes, and their values, depend on the
 * connector's kind: checked after the connector is looked up (src/stores/store-rules.ts), still as one 422.
 */
const STORE_SCHEMA = Type.Object(
  {
    id: text('Connector id (POST /1.0/connectors).', 128),
    bucket: Type.Optional(text('Target bucket (the container for Azure).', 255)),
    container: Type.Optional(
      text('Azure: the container (the same as bucket; if both are given they must agree).', 255),
    ),
    region: Type.Optional(
      text('Region of the bucket: required for S3, B2 and Spaces, refused for GCS, R2 and Azure.', 64),
    ),
    path: Type.Optional(
      text(
        'Object path without a leading slash. Ending in `/` (or omitted): a folder the output name is appended to.',
      ),
    ),
    acl: Type.Optional(
      text('Object ACL (S3, R2, B2, Spaces: default public-read; GCS: publicRead; not Azure).', 64),
    ),
    class: Type.Optional(
      text(
        'S3 storage class: standard (default), reduced-redundancy, standard-ia, onezone-ia, intelligent-tiering, glacier, deep-archive.',
        64,
      ),
    ),
    metadata: Type.Optional(stringMap('Custom object metadata.')),
    headers: Type.Optional(
      stringMap('HTTP headers stored with the object; allowed names depend on the store kind.'),
    ),
    tags: Type.Optional(stringMap('Object tags (S3 only).')),
  },
  {
    additionalProperties: false,
    description: 'Write the output to your own bucket through a stored connector.',
  },
);

export class RequestParser {
  readonly uploadDataSchema: TSchema;
  readonly fetchBodySchema: TSchema;
  readonly #registry: ProcessorRegistry;
  /**
   * Compiled by the first request of each kind (about 0.05 CPU-s for both): a CLI command, a worker and many
   * a test build the services but never parse a request.
   */
  #validateData: ReturnType<typeof compile> | undefined;
  #validateFetch: ReturnType<typeof compile> | undefined;
  /** Where the secret fields are, from the schema's `writeOnly` marks (the fetch body holds every one). */
  readonly #secretPaths: string[][];

  constructor(registry: ProcessorRegistry) {
    this.#registry = registry;
    const common = commonProperties(registry);
    this.uploadDataSchema = Type.Object(common, { additionalProperties: false });
    this.fetchBodySchema = Type.Object(
      {
        url: Type.String({
          minLength: 1,
          maxLength: 8192,
          description: 'Absolute http(s) URL of the input file.',
        }),
        headers: Type.Optional(
          Type.Record(Type.String(), Type.String(), {
            description:
              'Headers added to the download request. Kept encrypted while the job runs and deleted when it ends.',
            // A secret (jobs/job-secrets.ts): credentials such as Authorization or Cookie.
            writeOnly: true,
          }),
        ),
        ...common,
      },
      { additionalProperties: false },
    );
    this.#secretPaths = secretPaths(this.fetchBodySchema);
  }

  /** The `data` part of an upload (already JSON-parsed); `root` names it in error fields. */
  parseUploadData(value: unknown, root = 'data'): ParsedRequest {
    this.#validateData ??= compile(this.uploadDataSchema);
    const validate = this.#validateData;
    const errors = validate(value) ? [] : toFieldErrors(validate.errors, root);
    return this.#finish(value, errors);
  }

  parseFetchBody(value: unknown): ParsedFetchRequest {
    this.#validateFetch ??= compile(this.fetchBodySchema);
    const validate = this.#validateFetch;
    const errors = validate(value) ? [] : toFieldErrors(validate.errors, 'body');
    const parsed = this.#finish(value, errors);
    return { ...parsed, url: (value as { url: string }).url };
  }

  #finish(value: unknown, errors: FieldError[]): ParsedRequest {
    const body = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    // Cross-field rules run even when other parameters failed, so one answer lists every mistake.
    for (const processor of this.#registry.all()) {
      const params = body[processor.kind];
      if (processor.checkParams && params !== null && typeof params === 'object' && !Array.isArray(params)) {
        const seen = new Set(errors.map((e) => e.field));
        for (const error of processor.checkParams(params as Record<string, unknown>, processor.kind)) {
          if (!seen.has(error.field)) errors.push(error);
        }
      }
    }
    if (errors.length > 0) throw new ValidationError(errors);
    // Checked with the rest above, the secrets now go apart: the job keeps them sealed, never in its params.
    const { rest, secrets } = takeSecrets(body, this.#secretPaths);
    return { ...this.#request(rest), secrets };
  }

  #request(body: Record<string, unknown>): Omit<ParsedRequest, 'secrets'> {
    const params: JobParams = {};
    for (const kind of FILE_KINDS) if (body[kind] !== undefined) params[kind] = body[kind];
    if (body.metadata === true) params.metadata = true;
    // Checked against the connector's kind when the job is submitted (JobService, OutputDestinations).
    if (body.store !== undefined) params.store = body.store as Record<string, unknown>;
    const webhook = body.webhook as { url: string } | undefined;
    return { params, webhookUrl: webhook?.url, forceAsync: body.async === true || webhook !== undefined };
  }
}
