import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';

export interface HashedFile {
  sha1: string;
  size: number;
}

export async function hashFile(path: string): Promise<HashedFile> {
  const hash = createHash('sha1');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha1: hash.digest('hex'), size };
}

/**
 * A pass-through that hashes and counts what streams through it, so an upload or download is
 * described while it is written, without a second read. `maxBytes` stops a stream that grows too big.
 */
export class HashingCounter extends Transform {
  readonly #hash = createHash('sha1');
  readonly #maxBytes: number;
  readonly #onTooLarge: () => Error;
  size = 0;

  constructor(maxBytes = Number.POSITIVE_INFINITY, onTooLarge: () => Error = () => new Error('too large')) {
    super();
    this.#maxBytes = maxBytes;
    this.#onTooLarge = onTooLarge;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.#maxBytes) {
      callback(this.#onTooLarge());
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }

  digest(): HashedFile {
    return { sha1: this.#hash.digest('hex'), size: this.size };
  }
}
