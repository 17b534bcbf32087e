/**
 * `PressoClient`: the API's operations as typed methods, with the submit-and-wait flow done right. This
 * file is the browser and edge entry's client: Blobs and bytes only; `node.ts` adds paths and streams.
 */
import { PressoIntegrityError } from './errors.ts';
import { type RequestOptions, Transport, type TransportOptions } from './http.ts';
import type {
  Account,
  Acknowledgement,
  CompletedJob,
  Connector,
  ConnectorRequest,
  ConnectorTestRequest,
  JobList,
  JobListQuery,
  JobRecord,
  Params,
  Result,
  WebhookDeliveryPage,
  WebhookReplay,
} from './types.ts';
import { type WaitOptions, waitForJob } from './wait.ts';

export interface PressoClientOptions extends Omit<TransportOptions, 'baseUrl'> {
  /** The service's base URL, e.g. https://presso.example.org (no /1.0). */
  baseUrl: string;
  apiKey: string;
}

/** What `upload` takes everywhere; the Node entry adds a path and streams. */
export type BlobSource = Blob | Uint8Array | ArrayBuffer;
/** A request body part made once per attempt; `replayable` says whether it can be made again. */
export type FilePart = () => {
  body: NonNullable<RequestInit['body']>;
  headers?: Record<string, string>;
  replayable: boolean;
};

export interface CallOptions {
  signal?: AbortSignal;
}
export interface UploadOptions extends CallOptions {
  /** The file name sent (default: the File's or path's name, else `file`). */
  name?: string;
}
export type Submission = Result | Acknowledgement;
export interface CompressOptions extends WaitOptions, UploadOptions {}
/** `compress` input: something to upload, or `{url}` for the service to fetch. */
export type FetchSource = { url: string; headers?: Record<string, string> };

/** Whether a submission's answer is an acknowledgement (202) rather than a result (200). */
export function isAcknowledgement(answer: Submission | JobRecord): answer is Acknowledgement {
  return (
    !('url' in answer) &&
    'status' in answer &&
    (answer.status === 'enqueued' || answer.status === 'processing')
  );
}

export class PressoClient<Source = BlobSource> {
  readonly transport: Transport;

  constructor(options: PressoClientOptions) {
    this.transport = new Transport(options);
  }

  /** POST /1.0/upload: a result (200), or an acknowledgement (202) to `wait` on. */
  async upload(file: Source, params: Params = {}, options: UploadOptions = {}): Promise<Submission> {
    const part = await this.filePart(file, params, options.name);
    const answer = await this.transport.request<Submission>('/1.0/upload', {
      method: 'POST',
      body: part,
      signal: options.signal,
    });
    return answer.body;
  }

  /** POST /1.0/fetch: the service downloads `url` (with `headers`, if given) and processes it. */
  async fetch(
    source: string | FetchSource,
    params: Params = {},
    options: CallOptions = {},
  ): Promise<Submission> {
    const input = typeof source === 'string' ? { url: source } : source;
    const answer = await this.transport.request<Submission>('/1.0/fetch', {
      method: 'POST',
      json: { ...params, ...input },
      signal: options.signal,
    });
    return answer.body;
  }

  /** GET /1.0/jobs/{id}: the job's record now. */
  async job(id: string, options: CallOptions & { detail?: boolean } = {}): Promise<JobRecord> {
    const query = options.detail ? { detail: true } : {};
    return (
      await this.transport.request<JobRecord>(`/1.0/jobs/${encodeURIComponent(id)}`, {
        query,
        signal: options.signal,
      })
    ).body;
  }

  /** GET /1.0/jobs: the account's jobs, newest first. */
  async jobs(query: Partial<JobListQuery> = {}, options: CallOptions = {}): Promise<JobList> {
    return (
      await this.transport.request<JobList>('/1.0/jobs', {
        query: query as RequestOptions['query'],
        signal: options.signal,
      })
    ).body;
  }

  /** Polls until the job completes (its record) or fails (`PressoJobFailedError`); a result is returned as is. */
  async wait(job: string | Submission, options: WaitOptions = {}): Promise<CompletedJob> {
    if (typeof job !== 'string' && !isAcknowledgement(job)) return { ...job, status: 'completed' };
    return waitForJob(this.transport, typeof job === 'string' ? job : job.id, options);
  }

  /** Submit (upload, or fetch for `{url}`) and wait: one call, whether the server answers sync or async. */
  async compress(
    source: Source | FetchSource,
    params: Params = {},
    options: CompressOptions = {},
  ): Promise<CompletedJob> {
    const submitted = isFetchSource(source)
      ? await this.fetch(source, params, options)
      : await this.upload(source as Source, params, options);
    return this.wait(submitted, options);
  }

  /** GET /1.0/account: verifies the key; rate-limit state and usage. */
  async account(options: CallOptions = {}): Promise<Account> {
    return (await this.transport.request<Account>('/1.0/account', { signal: options.signal })).body;
  }

  readonly connectors = {
    list: async (options: CallOptions = {}): Promise<Connector[]> =>
      (
        await this.transport.request<{ connectors: Connector[] }>('/1.0/connectors', {
          signal: options.signal,
        })
      ).body.connectors,
    add: async (connector: ConnectorRequest, options: CallOptions = {}): Promise<Connector> =>
      (
        await this.transport.request<Connector>('/1.0/connectors', {
          method: 'POST',
          json: connector,
          signal: options.signal,
        })
      ).body,
    test: async (
      id: string,
      target: ConnectorTestRequest,
      options: CallOptions = {},
    ): Promise<{ ok: true }> =>
      (
        await this.transport.request<{ ok: true }>(`/1.0/connectors/${encodeURIComponent(id)}/test`, {
          method: 'POST',
          json: target,
          signal: options.signal,
        })
      ).body,
    remove: async (id: string, options: CallOptions = {}): Promise<void> => {
      await this.transport.request(`/1.0/connectors/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        idempotent: true,
        signal: options.signal,
      });
    },
  };

  readonly webhooks = {
    /** A job's deliveries with every attempt (`job`), or the account's, paged by `cursor`. */
    list: async (
      query: { job?: string; cursor?: string; limit?: number } = {},
      options: CallOptions = {},
    ): Promise<WebhookDeliveryPage> =>
      (await this.transport.request<WebhookDeliveryPage>('/1.0/webhooks', { query, signal: options.signal }))
        .body,
    replay: async (deliveryId: string, options: CallOptions = {}): Promise<WebhookReplay> =>
      (
        await this.transport.request<WebhookReplay>(
          `/1.0/webhooks/${encodeURIComponent(deliveryId)}/replay`,
          {
            method: 'POST',
            signal: options.signal,
          },
        )
      ).body,
  };

  /** The output's bytes as a Blob, checked against `output.sha1`. No API key is sent with a download. */
  async downloadBlob(result: Pick<Result, 'url' | 'output'>, options: CallOptions = {}): Promise<Blob> {
    const response = await this.downloadResponse(result, options);
    const blob = await response.blob();
    const sha1 = hex(new Uint8Array(await crypto.subtle.digest('SHA-1', await blob.arrayBuffer())));
    if (sha1 !== result.output.sha1)
      throw new PressoIntegrityError(
        `Downloaded ${result.url}: SHA-1 ${sha1}, expected ${result.output.sha1}.`,
      );
    return blob;
  }

  protected async downloadResponse(result: Pick<Result, 'url'>, options: CallOptions): Promise<Response> {
    return (
      await this.transport.request<Response>(result.url, {
        raw: true,
        anonymous: true,
        signal: options.signal,
      })
    ).body;
  }

  /** A FormData of the class the client's `fetch` encodes (the Node client's undici has its own). */
  protected newFormData(): FormData {
    return new FormData();
  }

  /** The multipart body for `upload`; the Node client overrides it for paths and streams. */
  protected async filePart(file: Source, params: Params, name: string | undefined): Promise<FilePart> {
    const blob = file instanceof Blob ? file : new Blob([file as Uint8Array<ArrayBuffer> | ArrayBuffer]);
    const fileName = name ?? (typeof File !== 'undefined' && file instanceof File ? file.name : 'file');
    return () => {
      const form = this.newFormData();
      form.append('file', blob, fileName);
      if (Object.keys(params).length > 0) form.append('data', JSON.stringify(params));
      return { body: form, replayable: true };
    };
  }
}

function isFetchSource(source: unknown): source is FetchSource {
  return (
    typeof source === 'object' &&
    source !== null &&
    !(source instanceof Blob) &&
    !ArrayBuffer.isView(source) &&
    typeof (source as { url?: unknown }).url === 'string'
  );
}

export function hex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}
