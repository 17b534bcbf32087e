/**
 * Connectors: an account's store credentials, checked by a probe write before they are kept, encrypted at
 * rest, shown afterwards only as a masked hint, and used to deliver job outputs (OutputDestinations).
 */
import { randomUUID } from 'node:crypto';
import { NotFoundError, StoreWriteError, ValidationError } from '../errors/catalog.ts';
import type { OutputDestinations } from '../jobs/output-destinations.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import { STORE_KINDS, StoreError, type StoreKind } from '../stores/external-store.ts';
import { openStore } from '../stores/open-store.ts';
import { checkStore } from '../stores/store-rules.ts';
import { compile, toFieldErrors } from '../validation/schema-validator.ts';
import type { ConnectorRecord, ConnectorStore } from './connector-store.ts';
import type { CredentialCipher } from './credential-cipher.ts';
import { CREDENTIAL_SCHEMAS, credentialHint, customEndpoint } from './credentials.ts';

export interface ConnectorView {
  id: string;
  kind: StoreKind;
  name: string;
  hint: string;
  createdAt: string;
}

export interface NewConnector {
  kind: string;
  name?: string;
  credentials: Record<string, unknown>;
  /** The bucket (Azure: container) the probe writes to, and its region where the kind needs one. */
  bucket: string;
  region?: string;
}

const validators = Object.fromEntries(STORE_KINDS.map((kind) => [kind, compile(CREDENTIAL_SCHEMAS[kind])]));

export class ConnectorService implements OutputDestinations {
  readonly #store: ConnectorStore;
  readonly #cipher: CredentialCipher;
  readonly #outbound: Pick<OutboundClient, 'checkUrl'>;

  constructor(store: ConnectorStore, cipher: CredentialCipher, outbound: Pick<OutboundClient, 'checkUrl'>) {
    this.#store = store;
    this.#cipher = cipher;
    this.#outbound = outbound;
  }

  async create(accountId: string, input: NewConnector): Promise<ConnectorView> {
    const kind = input.kind as StoreKind;
    if (!STORE_KINDS.includes(kind))
      throw ValidationError.field('kind', `must be one of ${STORE_KINDS.join(', ')}`);
    const validate = validators[kind]!;
    if (!validate(input.credentials))
      throw new ValidationError(toFieldErrors(validate.errors, 'credentials'));
    await this.#checkEndpoint(input.credentials);
    await this.#probe(kind, input.credentials, input.bucket, input.region);
    const id = `con_${randomUUID().replaceAll('-', '')}`;
    const record: ConnectorRecord = {
      id,
      accountId,
      kind,
      name: input.name ?? `${kind} ${input.bucket}`,
      hint: credentialHint(kind, input.credentials),
      secret: this.#cipher.encrypt(input.credentials, `${id}:${kind}`),
      createdAt: Date.now(),
    };
    await this.#store.create(record);
    return view(record);
  }

  async list(accountId: string): Promise<ConnectorView[]> {
    return (await this.#store.list(accountId)).map(view);
  }

  async remove(accountId: string, id: string): Promise<void> {
    if (!(await this.#store.remove(accountId, id))) throw new NotFoundError('No connector with this id.');
  }

  /** Writes and deletes a probe object with a stored connector's credentials. */
  async test(accountId: string, id: string, bucket: string, region: string | undefined): Promise<void> {
    const { record, credentials } = await this.#open(accountId, id, 'id');
    await this.#probe(record.kind, credentials, bucket, region);
  }

  async check(accountId: string, store: Record<string, unknown>): Promise<void> {
    const { record } = await this.#open(accountId, String(store.id), 'store.id');
    const { errors } = checkStore(record.kind, store, {
      name: 'output',
      contentType: 'application/octet-stream',
    });
    if (errors.length > 0) throw new ValidationError(errors);
  }

  async deliver(
    accountId: string,
    store: Record<string, unknown>,
    file: { path: string; name: string; mime: string },
    signal: AbortSignal,
  ): Promise<{ url: string }> {
    const { record, credentials } = await this.#open(accountId, String(store.id), 'store.id');
    const { errors, target } = checkStore(record.kind, store, { name: file.name, contentType: file.mime });
    if (target === undefined) throw new ValidationError(errors);
    try {
      return await openStore(record.kind, credentials).write(target, file.path, signal);
    } catch (error) {
      if (error instanceof StoreError) throw new StoreWriteError(error.message, error);
      throw error;
    }
  }

  async #open(accountId: string, id: string, field: string) {
    const record = await this.#store.get(accountId, id);
    if (record === undefined) throw new NotFoundError(`No connector with this id (${field}).`);
    const credentials = this.#cipher.decrypt(record.secret, `${record.id}:${record.kind}`) as Record<
      string,
      unknown
    >;
    return { record, credentials };
  }

  /** A custom endpoint must pass the outbound address guard, like any URL the service is asked to reach. */
  async #checkEndpoint(credentials: Record<string, unknown>): Promise<void> {
    const endpoint = customEndpoint(credentials);
    if (endpoint !== undefined) await this.#outbound.checkUrl(endpoint, 'credentials.endpoint');
  }

  async #probe(
    kind: StoreKind,
    credentials: Record<string, unknown>,
    bucket: string,
    region: string | undefined,
  ) {
    try {
      await openStore(kind, credentials).probe(bucket, region);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      const field =
        error.reason === 'bucket'
          ? 'bucket'
          : error.reason === 'unreachable'
            ? 'credentials.endpoint'
            : 'credentials';
      throw new ValidationError([{ field, message: `The probe write failed: ${error.message}` }]);
    }
  }
}

function view(record: ConnectorRecord): ConnectorView {
  return {
    id: record.id,
    kind: record.kind,
    name: record.name,
    hint: record.hint,
    createdAt: new Date(record.createdAt).toISOString(),
  };
}
