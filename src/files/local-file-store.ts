/**
 * The embedded file store: a folder on local disk. Keys map one-to-one onto relative paths under the
 * root, so they are validated strictly: a key must never name anything outside the root.
 *
 * Writes are atomic: a file appears under its final key complete or not at all. Same-filesystem
 * moves are a single rename; across filesystems the bytes are copied to a temporary sibling first
 * and then renamed into place, so a reader never sees a half-written file.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { ByteRange, FileStore, FileStoreCapabilities, StoredFile } from './file-store.ts';
import { notFound, validateKey, validateRange } from './keys.ts';

/** Temporary files live next to their destination (same filesystem, removed with the prefix). */
const TEMP_SUFFIX = '.partial';

export class LocalFileStore implements FileStore {
  readonly capabilities: FileStoreCapabilities = { localPaths: true };
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    const target = this.#path(key);
    await mkdir(dirname(target), { recursive: true });
    try {
      // rename(2) replaces an existing file atomically.
      await rename(sourcePath, target);
      return;
    } catch (error) {
      if (!isCode(error, 'EXDEV')) throw error;
    }
    const temp = tempSibling(target);
    try {
      await copyFile(sourcePath, temp);
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await unlink(sourcePath);
  }

  async downloadTo(key: string, destinationPath: string): Promise<void> {
    const source = this.#path(key);
    try {
      // COPYFILE_FICLONE lets copy-on-write filesystems share the blocks instead of copying them.
      await copyFile(source, destinationPath, constants.COPYFILE_FICLONE);
    } catch (error) {
      if (isMissing(error)) throw notFound(key, error);
      throw error;
    }
  }

  localPath(key: string): string | undefined {
    return this.#path(key);
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    if (range) validateRange(range);
    const path = this.#path(key);
    // Open first so a missing file rejects here rather than as a later stream error.
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw isMissing(error) ? notFound(key, error) : error;
    });
    try {
      if (!(await handle.stat()).isFile()) throw notFound(key);
    } catch (error) {
      await handle.close();
      throw error;
    }
    // The stream owns the handle from here and closes it at the end or on destroy.
    return handle.createReadStream({ start: range?.start, end: range?.end });
  }

  async stat(key: string): Promise<StoredFile | undefined> {
    try {
      const info = await stat(this.#path(key));
      return info.isFile() ? { size: info.size } : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /**
   * Deletes every key starting with `prefix`, with the same string-prefix meaning as an object store:
   * `jobs/a/` removes the folder `jobs/a`, while `jobs/a` also removes `jobs/ab/...`.
   */
  async deletePrefix(prefix: string): Promise<void> {
    if (prefix.endsWith('/')) {
      await rm(this.#path(prefix.slice(0, -1)), { recursive: true, force: true });
      return;
    }
    const path = this.#path(prefix);
    const directory = dirname(path);
    const namePrefix = path.slice(directory.length + 1);
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    await Promise.all(
      names
        .filter((name) => name.startsWith(namePrefix))
        .map((name) => rm(join(directory, name), { recursive: true, force: true })),
    );
  }

  #path(key: string): string {
    validateKey(key);
    const path = join(this.root, ...key.split('/'));
    // Defence in depth: validation already rules out escaping the root.
    if (!path.startsWith(this.root + sep)) throw new TypeError(`Invalid file key: ${JSON.stringify(key)}`);
    return path;
  }
}

function tempSibling(target: string): string {
  return `${dirname(target)}${sep}.${randomUUID()}${TEMP_SUFFIX}`;
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

function isMissing(error: unknown): boolean {
  return isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR');
}
