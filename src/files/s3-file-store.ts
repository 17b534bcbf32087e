/**
 * The scaled-out file store: job inputs and temporary outputs in one S3-compatible bucket shared by every
 * process, so any API node serves any download and any worker reads any input. Keys are the same
 * slash-separated paths as on local disk (keys.ts), under an optional prefix. Uploads stream from the
 * local file in parts (lib-storage), so a 4 GB video never sits in memory; an object appears whole or
 * not at all, as S3 writes are atomic per object.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ByteRange, FileStore, FileStoreCapabilities, StoredFile } from './file-store.ts';
import { notFound, validateKey, validatePrefix, validateRange } from './keys.ts';

export interface S3FileStoreOptions {
  bucket: string;
  /** Prepended to every key (`presso/`): one bucket can hold several deployments. */
  prefix: string;
  /** The SDK client's settings: region, endpoint, credentials, path-style addressing. */
  client: S3ClientConfig;
}

/** Parts of 16 MiB, four in flight: 64 MiB of buffers per upload at most. */
const PART_BYTES = 16 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;

export class S3FileStore implements FileStore {
  readonly capabilities: FileStoreCapabilities = { localPaths: false };
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(options: S3FileStoreOptions) {
    this.#client = new S3Client(options.client);
    this.#bucket = options.bucket;
    this.#prefix = options.prefix;
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: this.#key(key), Body: createReadStream(sourcePath) },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
    });
    await upload.done();
    // The interface lets a store move the file: the local copy is not needed any more.
    await unlink(sourcePath);
  }

  async downloadTo(key: string, destinationPath: string): Promise<void> {
    await pipeline(await this.read(key), createWriteStream(destinationPath));
  }

  localPath(_key: string): string | undefined {
    return undefined;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    if (range) validateRange(range);
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: this.#key(key),
      ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
    });
    try {
      const { Body, ContentRange } = await this.#client.send(command);
      if (!(Body instanceof Readable)) throw new Error('the S3 client returned no stream');
      if (range === undefined) return Body;
      // Some S3-compatible servers answer a range with more than asked (s3rver sends the whole object for
      // `bytes=0-0`; a server without range support sends it all with 200): cut to the range either way.
      const from =
        ContentRange === undefined ? range.start : Number(/^bytes (\d+)-/.exec(ContentRange)?.[1] ?? 0);
      return Readable.from(slice(Body, range.start - from, range.end - range.start + 1));
    } catch (error) {
      throw isMissing(error) ? notFound(key, error) : error;
    }
  }

  async stat(key: string): Promise<StoredFile | undefined> {
    try {
      const head = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }),
      );
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Lists the prefix page by page (1,000 keys each) and deletes each page in one request. */
  async deletePrefix(prefix: string): Promise<void> {
    validatePrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: this.#prefix + prefix,
          ContinuationToken: token,
        }),
      );
      const objects = (page.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [{ Key: o.Key }]));
      if (objects.length > 0) {
        const result = await this.#client.send(
          new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: objects, Quiet: true } }),
        );
        // A batch delete answers 200 with the keys it could not delete: the caller (the sweeper) must not
        // record as gone what is still in the bucket, so it tries again on its next pass.
        const failed = result.Errors ?? [];
        if (failed.length > 0) {
          const first = failed[0];
          throw new Error(
            `could not delete ${failed.length} object(s) under ${prefix}: ${first?.Code ?? 'error'} ${first?.Message ?? ''}`.trim(),
          );
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** Closes the client's sockets. */
  close(): void {
    this.#client.destroy();
  }

  #key(key: string): string {
    validateKey(key);
    return this.#prefix + key;
  }
}

/** The bytes of `source` from `skip` on, at most `take` of them; the source is closed early when done. */
async function* slice(source: Readable, skip: number, take: number): AsyncGenerator<Buffer> {
  let toSkip = skip;
  let left = take;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let part = chunk;
      if (toSkip > 0) {
        const skipped = Math.min(toSkip, part.length);
        toSkip -= skipped;
        part = part.subarray(skipped);
      }
      if (part.length === 0) continue;
      if (part.length >= left) {
        yield part.subarray(0, left);
        return;
      }
      left -= part.length;
      yield part;
    }
  } finally {
    source.destroy();
  }
}

function isMissing(error: unknown): boolean {
  const { name, $metadata } = (error ?? {}) as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}
