/**
 * Connectors: an account's store credentials, checked by a probe write before they are kept, encrypted at
 * rest, shown afterwards only as a masked hint, and used to deliver job outputs (OutputDestinations).
 *
 * Every use (the probe at creation, `/test`, each delivery) opens the store with fresh guarded agents, so each
 * connection is judged by the address guard when it is made, with the allow-list in force then: a connector
 * whose endpoint now resolves to a refused address, or that an allow-list no longer covers, stops working.
 */
import { randomUUID } from 'node:crypto';
import { type FieldError, NotFoundError, StoreWriteError, ValidationError } from '../errors/catalog.ts';
import type { OutputDestinations } from '../jobs/output-destinations.ts';
import type { GuardedAgents } from '../outbound/guarded-agents.ts';
import { isStoreKind, STORE_KINDS, type StoreKind, storeModuleOf } from '../stores/catalog.ts';
import { type ExternalStore, StoreError } from '../stores/external-store.ts';
import { openStore } from '../stores/open-store.ts';
import { checkProbeTarget, checkStore } from '../stores/store-rules.ts';
import { compile, toFieldErrors } from '../validation/schema-validator.ts';
import type { ConnectorRecord, ConnectorStore } from './connector-store.ts';
import type { CredentialCipher } from './credential-cipher.ts';
import { credentialHint, credentialProblems } from './credentials.ts';

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

/**
 * Each kind's credentials check, compiled by the first connector of that kind (not when the module loads: that
 * was about 0.05 CPU-s of every server, CLI and test start, most of which never see a connector).
 */
const validators = new Map<StoreKind, ReturnType<typeof compile>>();

function credentialsValidator(kind: StoreKind): ReturnType<typeof compile> {
  let validate = validators.get(kind);
  if (validate === undefined) {
    validate = compile(storeModuleOf(kind).credentials);
    validators.set(kind, validate);
  }
  return validate;
}

export class ConnectorService implements OutputDestinations {
  readonly #store: ConnectorStore;
  readonly #cipher: CredentialCipher;
  readonly #agents: () => GuardedAgents;

  /** `agents` makes a fresh pair of guarded agents (GuardedOutboundClient.agents) for each use of a store. */
  constructor(store: ConnectorStore, cipher: CredentialCipher, agents: () => GuardedAgents) {
    this.#store = store;
    this.#cipher = cipher;
    this.#agents = agents;
  }

  async create(accountId: string, input: NewConnector): Promise<ConnectorView> {
    const kind = input.kind;
    if (!isStoreKind(kind)) throw ValidationError.field('kind', `must be one of ${STORE_KINDS.join(', ')}`);
    const validate = credentialsValidator(kind);
    if (!validate(input.credentials))
      throw new ValidationError(toFieldErrors(validate.errors, 'credentials'));
    const problems = [
      ...credentialProblems(kind, input.credentials),
      ...checkProbeTarget(input.bucket, input.region),
    ];
    if (problems.length > 0) throw new ValidationError(problems);
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
    const problems = checkProbeTarget(bucket, region);
    if (problems.length > 0) throw new ValidationError(problems);
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
      return await this.#use(record.kind, credentials, (s) => s.write(target, file.path, signal));
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      // A connector whose address the guard refuses is the request's to fix (422), not the store's failure.
      if (error.reason === 'refused')
        throw ValidationError.field(
          error.steeredBy === 'region' ? 'store.region' : 'store.id',
          error.message,
        );
      throw new StoreWriteError(error.message, error);
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

  /** Opens the store with fresh guarded agents for one piece of work, and closes their sockets after it. */
  async #use<T>(
    kind: StoreKind,
    credentials: Record<string, unknown>,
    work: (store: ExternalStore) => Promise<T>,
  ): Promise<T> {
    const agents = this.#agents();
    try {
      return await work(await openStore(kind, credentials, agents));
    } finally {
      agents.destroy();
    }
  }

  async #probe(
    kind: StoreKind,
    credentials: Record<string, unknown>,
    bucket: string,
    region: string | undefined,
  ) {
    try {
      await this.#use(kind, credentials, (store) => store.probe(bucket, region));
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      throw new ValidationError([probeError(error)]);
    }
  }
}

/** A failed probe as the 422 entry on the field at fault: the setting that steered the host, or by reason. */
function probeError(error: StoreError): FieldError {
  const message = `The probe write failed: ${error.message}`;
  if (error.steeredBy === 'region') return { field: 'region', message };
  if (
    error.steeredBy !== undefined &&
    (error.reason === 'refused' || error.reason === 'unreachable' || error.reason === 'credentials')
  )
    return { field: `credentials.${error.steeredBy}`, message };
  if (error.reason === 'bucket') return { field: 'bucket', message };
  if (error.reason === 'unreachable') return { field: 'credentials.endpoint', message };
  return { field: 'credentials', message };
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
