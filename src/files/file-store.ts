/**
 * Where job inputs and temporary outputs live. Embedded: a folder on local disk; scaled: an
 * S3-compatible bucket shared by every process. Keys are slash-separated relative paths.
 */
import type { Readable } from 'node:stream';

export interface FileStoreCapabilities {
  /** Files are on this machine's disk, so `localPath` works and copies can be avoided. */
  localPaths: boolean;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export interface StoredFile {
  size: number;
}

export interface FileStore {
  readonly capabilities: FileStoreCapabilities;
  /** Stores a local file under `key`, moving it when it can (the source may be gone afterwards). */
  putFile(key: string, sourcePath: string): Promise<void>;
  /** Copies the stored file to a local path (for tools that need a real file). */
  downloadTo(key: string, destinationPath: string): Promise<void>;
  /** The file's path on local disk; only when `capabilities.localPaths`. */
  localPath(key: string): string | undefined;
  read(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<StoredFile | undefined>;
  /** Deletes every file whose key starts with `prefix`. */
  deletePrefix(prefix: string): Promise<void>;
}
