/**
 * Google Cloud Storage with a service account, on the JSON API: files up to 8 MiB in one multipart request,
 * larger ones as a resumable upload sent in one streamed request (memory does not grow with the file), each
 * checked against the MD5 the service reports. The ACL is the request's predefined ACL (`publicRead` by
 * default). `apiEndpoint` points the client at another server (the tests' JSON-API server); as with Google's
 * SDK, no token is asked for then.
 *
 * Not through @google-cloud/storage: it sends its requests through three HTTP stacks (teeny-request, which
 * takes no agent and uses the process's global one, and two versions of gaxios), so its connections could not
 * all be put under the address guard. Here every request, the token's included, goes through the guarded
 * agents, and a resumable session must stay on the endpoint's origin.
 */

import { createHash, type Hash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { withoutTrailingSlashes } from '../../config/text.ts';
import type { GuardedAgents } from '../../outbound/guarded-agents.ts';
import { type ExternalStore, type HostSetting, StoreError, type StoreTarget } from '../external-store.ts';
import { endpointProblem } from '../name-rules.ts';
import { answerJson, GCS_NAME, type GcsAnswer, send } from './json-api.ts';
import { serviceAccountToken } from './service-account-token.ts';

export interface GcsCredentials {
  /** The service-account key file's JSON (client_email, private_key, project_id). */
  serviceAccount: { client_email: string; private_key: string; project_id?: string };
  apiEndpoint?: string;
}

/**
 * A stored connector's credentials in the JSON API's form (the connector schema checked them when they were
 * stored): refused as credentials when they are not.
 */
export function gcsCredentials(credentials: Record<string, unknown>): GcsCredentials {
  const account = credentials.serviceAccount;
  const apiEndpoint = credentials.apiEndpoint;
  if (account === null || typeof account !== 'object')
    throw new StoreError(GCS_NAME, 'credentials', 'no service account');
  const field = (name: string) => {
    const value: unknown = Reflect.get(account, name);
    return typeof value === 'string' ? value : undefined;
  };
  const [email, key, project] = [field('client_email'), field('private_key'), field('project_id')];
  if (email === undefined || key === undefined)
    throw new StoreError(GCS_NAME, 'credentials', 'the service account has no client_email or private_key');
  return {
    serviceAccount: {
      client_email: email,
      private_key: key,
      ...(project === undefined ? {} : { project_id: project }),
    },
    ...(typeof apiEndpoint === 'string' ? { apiEndpoint } : {}),
  };
}

const SINGLE_REQUEST_BYTES = 8 * 1024 ** 2;
const GOOGLE = 'https://storage.googleapis.com';

export class GcsStore implements ExternalStore {
  readonly kind = 'gcs' as const;
  readonly #credentials: GcsCredentials;
  readonly #agents: GuardedAgents;
  #token: Promise<string> | undefined;

  constructor(credentials: GcsCredentials, agents: GuardedAgents) {
    this.#credentials = credentials;
    this.#agents = agents;
  }

  async write(target: StoreTarget, localPath: string, signal?: AbortSignal): Promise<{ url: string }> {
    signal?.throwIfAborted();
    const base = this.#base();
    const size = (await stat(localPath)).size;
    const h = target.headers;
    const resource = {
      name: target.key,
      contentType: target.contentType,
      cacheControl: h['Cache-Control'],
      contentEncoding: h['Content-Encoding'],
      contentLanguage: h['Content-Language'],
      contentDisposition: h['Content-Disposition'],
      metadata: target.metadata,
    };
    const upload = { bucket: target.bucket, resource, acl: target.acl, signal };
    const file = () => createReadStream(localPath);
    if (size <= SINGLE_REQUEST_BYTES) await this.#multipart(base, upload, file, size);
    else await this.#resumable(base, upload, file, size);
    return {
      url: `${base}/${target.bucket}/${target.key.split('/').map(encodeURIComponent).join('/')}`,
    };
  }

  async probe(bucket: string): Promise<void> {
    const base = this.#base();
    const name = `.presso-probe-${randomUUID()}`;
    const data = Buffer.from('presso connector probe');
    const resource = { name, contentType: 'text/plain' };
    await this.#multipart(
      base,
      { bucket, resource, acl: undefined, signal: undefined },
      () => Readable.from([data]),
      data.length,
    );
    const path = `/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(name)}`;
    await this.#call({ method: 'DELETE', url: `${base}${path}`, headers: await this.#auth(undefined) });
  }

  /** One request with the file: a JSON part with the resource, then the bytes (multipart/related). */
  async #multipart(base: string, upload: Upload, file: () => Readable, size: number): Promise<void> {
    const boundary = `presso-${randomUUID()}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(upload.resource)}\r\n` +
        `--${boundary}\r\nContent-Type: ${upload.resource.contentType}\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    let hash: Hash = createHash('md5');
    const answer = await this.#call({
      method: 'POST',
      url: `${base}/upload/storage/v1/b/${encodeURIComponent(upload.bucket)}/o?${query('multipart', upload)}`,
      headers: {
        ...(await this.#auth(upload.signal)),
        'content-type': `multipart/related; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
      body: () => {
        hash = createHash('md5');
        return Readable.from(framed(head, file(), tail, hash));
      },
      signal: upload.signal,
    });
    await this.#checkStored(base, upload.bucket, answer, hash);
  }

  /** A resumable session, then the whole file in one PUT: the session must be on the endpoint's origin. */
  async #resumable(base: string, upload: Upload, file: () => Readable, size: number): Promise<void> {
    const auth = await this.#auth(upload.signal);
    const session = await this.#call({
      method: 'POST',
      url: `${base}/upload/storage/v1/b/${encodeURIComponent(upload.bucket)}/o?${query('resumable', upload)}`,
      headers: {
        ...auth,
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-type': String(upload.resource.contentType),
        'x-upload-content-length': size,
      },
      body: Buffer.from(JSON.stringify(upload.resource)),
      signal: upload.signal,
    });
    const location = session.headers.location;
    let sessionUrl: URL | undefined;
    try {
      sessionUrl = location === undefined ? undefined : new URL(location, base);
    } catch {}
    if (sessionUrl === undefined || sessionUrl.origin !== new URL(base).origin)
      throw new StoreError(
        GCS_NAME,
        'other',
        'the upload session is not on the API endpoint (location refused)',
      );
    let hash: Hash = createHash('md5');
    const answer = await this.#call({
      method: 'PUT',
      url: sessionUrl.href,
      headers: { ...auth, 'content-length': size },
      body: () => {
        hash = createHash('md5');
        return Readable.from(framed(Buffer.alloc(0), file(), Buffer.alloc(0), hash));
      },
      signal: upload.signal,
    });
    await this.#checkStored(base, upload.bucket, answer, hash);
  }

  /** The object the service reports must have the MD5 of what was sent; otherwise it is removed again. */
  async #checkStored(base: string, bucket: string, answer: GcsAnswer, hash: Hash): Promise<void> {
    const stored = answerJson(answer);
    const md5 = stored?.md5Hash;
    if (typeof md5 !== 'string' || md5 === hash.digest('base64')) return;
    const path = `/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(String(stored?.name))}`;
    await send(this.#agents, {
      method: 'DELETE',
      url: `${base}${path}`,
      headers: await this.#auth(undefined),
    }).catch(() => {});
    throw new StoreError(GCS_NAME, 'other', 'the stored object does not have the MD5 of the file sent');
  }

  /** A request whose answer must be 2xx; anything else is the StoreError that says why. */
  async #call(request: Parameters<typeof send>[1]): Promise<GcsAnswer> {
    let answer: GcsAnswer;
    try {
      answer = await send(this.#agents, request);
    } catch (error) {
      throw this.#failure(error);
    }
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw answerError(answer);
  }

  /** The API endpoint: Google's, or the checked override. */
  #base(): string {
    const { apiEndpoint } = this.#credentials;
    if (apiEndpoint === undefined) return GOOGLE;
    const problem = endpointProblem(apiEndpoint);
    if (problem !== undefined)
      throw new StoreError(GCS_NAME, 'credentials', `apiEndpoint ${problem}`, undefined, 'apiEndpoint');
    return withoutTrailingSlashes(apiEndpoint);
  }

  /** The Authorization header: a service-account token from Google, none for an endpoint override. */
  async #auth(signal: AbortSignal | undefined): Promise<Record<string, string>> {
    if (this.#credentials.apiEndpoint !== undefined) return {};
    this.#token ??= serviceAccountToken(this.#agents, this.#credentials.serviceAccount, signal).catch(
      (error) => {
        this.#token = undefined;
        throw error instanceof StoreError ? error : this.#failure(error);
      },
    );
    return { authorization: `Bearer ${await this.#token}` };
  }

  #failure(error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    const setting: HostSetting = this.#credentials.apiEndpoint === undefined ? undefined : 'apiEndpoint';
    const refusal = this.#agents.refusal;
    if (refusal !== undefined) return new StoreError(GCS_NAME, 'refused', refusal.message, error, setting);
    const code = (error as NodeJS.ErrnoException)?.code ?? '';
    const message = String((error as Error)?.message ?? error).slice(0, 300);
    if (/^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH)$/.test(code))
      return new StoreError(GCS_NAME, 'unreachable', message, error, setting);
    return new StoreError(GCS_NAME, 'other', message, error);
  }
}

interface Upload {
  bucket: string;
  resource: Record<string, unknown>;
  acl: string | undefined;
  signal: AbortSignal | undefined;
}

function query(uploadType: string, upload: Upload): string {
  const params = new URLSearchParams({ uploadType, name: String(upload.resource.name) });
  if (upload.acl !== undefined) params.set('predefinedAcl', upload.acl);
  return params.toString();
}

/** The body: `head`, the file's bytes (hashed as they pass), `tail`. */
async function* framed(head: Buffer, file: Readable, tail: Buffer, hash: Hash): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  for await (const chunk of file) {
    hash.update(chunk as Buffer);
    yield chunk as Buffer;
  }
  if (tail.length > 0) yield tail;
}

/** A JSON API error answer (`{error: {code, message}}`) as the reason it gives. */
function answerError(answer: GcsAnswer): StoreError {
  const error = answerJson(answer)?.error as { message?: unknown } | undefined;
  const message = String(error?.message ?? `HTTP ${answer.status}`)
    .split('\n')[0]!
    .slice(0, 300);
  if (answer.status === 401) return new StoreError(GCS_NAME, 'credentials', message);
  if (answer.status === 403) return new StoreError(GCS_NAME, 'permission', message);
  if (answer.status === 404) return new StoreError(GCS_NAME, 'bucket', message);
  return new StoreError(GCS_NAME, 'other', `${message} (HTTP ${answer.status})`);
}
