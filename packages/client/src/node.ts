/**
 * `@presso/client/node`: the client for Node 22+, adding what only Node has: uploads from a path (read
 * lazily, so a retry after a 429 re-reads it) or a stream (sent as it is read, never held in memory),
 * downloads to a file (SHA-1 checked while writing, renamed into place only when whole), and a custom CA
 * certificate for a server with the self-signed default.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, FormData as UndiciFormData, fetch as undiciFetch } from 'undici';
import {
  type BlobSource,
  type CallOptions,
  type FilePart,
  PressoClient,
  type PressoClientOptions,
  type Submission,
} from './client.ts';
import { PressoIntegrityError } from './errors.ts';
import type { FetchFunction } from './http.ts';
import type { Params, Result } from './types.ts';

export * from './index.ts';

/** A path, a Node stream or a web stream, besides what every runtime takes. */
export type NodeSource = BlobSource | string | Readable | ReadableStream<Uint8Array>;

export interface NodeClientOptions extends Omit<PressoClientOptions, 'fetch'> {
  /** PEM of the CA (or the self-signed certificate itself) to trust besides the system's. */
  ca?: string | Buffer;
  /** Connections per origin kept open (default 16). */
  connections?: number;
}

export interface DownloadResult {
  path: string;
  bytes: number;
}

export class NodePressoClient extends PressoClient<NodeSource> {
  readonly #agent: Agent;

  constructor(options: NodeClientOptions) {
    const { ca, connections = 16, ...rest } = options;
    const agent = new Agent({ connections, ...(ca ? { connect: { ca } } : {}) });
    const fetchWithAgent: FetchFunction = (input, init) =>
      undiciFetch(input, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
    super({ ...rest, fetch: fetchWithAgent });
    this.#agent = agent;
  }

  /**
   * Writes the output to `dest` (a file path, or an existing directory to put `output.name` in). The
   * SHA-1 is checked against `output.sha1`; a partial or wrong file never takes the name.
   */
  async download(
    result: Pick<Result, 'url' | 'output'>,
    dest: string,
    options: CallOptions = {},
  ): Promise<DownloadResult> {
    const isDirectory = await stat(dest).then(
      (s) => s.isDirectory(),
      () => false,
    );
    const path = isDirectory ? join(dest, basename(result.output.name)) : dest;
    const partial = join(dirname(path), `.${basename(path)}.${randomUUID()}.part`);
    const response = await this.downloadResponse(result, options);
    const hash = createHash('sha1');
    let bytes = 0;
    try {
      await pipeline(
        Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            hash.update(chunk);
            bytes += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(partial),
        options.signal ? { signal: options.signal } : {},
      );
      const sha1 = hash.digest('hex');
      if (sha1 !== result.output.sha1)
        throw new PressoIntegrityError(
          `Downloaded ${result.url}: SHA-1 ${sha1}, expected ${result.output.sha1}.`,
        );
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return { path, bytes };
  }

  /** Closes the kept-alive connections (a CLI exits sooner). */
  close(): Promise<void> {
    return this.#agent.close();
  }

  protected override newFormData(): FormData {
    return new UndiciFormData() as unknown as FormData;
  }

  /**
   * Uploads a file from its path, reporting the bytes sent as they go (a CLI's progress bar). Each attempt
   * re-opens the file, so a 429 answer is retried as a Blob upload is.
   */
  async uploadPath(
    path: string,
    params: Params = {},
    options: CallOptions & { name?: string; onUploadProgress?: (sent: number) => void } = {},
  ): Promise<Submission> {
    const name = options.name ?? basename(path);
    const part: FilePart = () => {
      let sent = 0;
      const counted = createReadStream(path).on('data', (chunk) => {
        sent += chunk.length;
        options.onUploadProgress?.(sent);
      });
      return { ...streamingPart(counted, params, name)(), replayable: true };
    };
    const answer = await this.transport.request<Submission>('/1.0/upload', {
      method: 'POST',
      body: part,
      signal: options.signal,
    });
    return answer.body;
  }

  protected override async filePart(
    file: NodeSource,
    params: Params,
    name: string | undefined,
  ): Promise<FilePart> {
    if (typeof file === 'string') {
      const blob = await openAsBlob(file);
      return super.filePart(blob, params, name ?? basename(file));
    }
    if (file instanceof Readable || file instanceof ReadableStream)
      return streamingPart(file, params, name ?? 'file');
    return super.filePart(file, params, name);
  }
}

/** A multipart body streamed from a stream of unknown length: `data` first, then `file`. It can be sent once. */
function streamingPart(
  source: Readable | ReadableStream<Uint8Array>,
  params: Params,
  name: string,
): FilePart {
  const boundary = `presso-${randomUUID()}`;
  const quoted = name.replace(/["\r\n\\]/g, '_');
  const head =
    (Object.keys(params).length > 0
      ? `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${JSON.stringify(params)}\r\n`
      : '') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const tail = `\r\n--${boundary}--\r\n`;
  const nodeStream = source instanceof Readable ? source : Readable.fromWeb(source as never);
  let used = false;
  return () => {
    if (used) throw new TypeError('A stream upload cannot be sent twice.');
    used = true;
    const body = Readable.toWeb(
      Readable.from(
        (async function* () {
          yield Buffer.from(head);
          for await (const chunk of nodeStream) yield chunk as Buffer;
          yield Buffer.from(tail);
        })(),
      ),
    ) as unknown as ReadableStream<Uint8Array>;
    return {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      replayable: false,
    };
  };
}
