/**
 * Where an upload is written while its request is read, with one owner. Each upload gets a folder of its
 * own under the uploads root, and the route removes it when the request ends, however it ended: answered,
 * refused (413, 400), timed out (408), aborted by the client, or cut by a shutdown. A complete upload leaves
 * the folder before that, moved into the file store by the job service; anything still in the folder when the
 * request ends belongs to nobody and goes with it. So no status code needs its own clean-up.
 *
 * The folder also owns the write streams it hands out: removing it closes any still open first, so a partial
 * file is neither left on disk nor held open (an unlinked file that is still open keeps its blocks). On
 * shutdown, `closeAll` removes the folders of requests still in flight and waits until they are gone.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

export class UploadFolder {
  readonly path: string;
  readonly #streams = new Set<WriteStream>();
  readonly #onRemoved: () => void;
  #removed: Promise<void> | undefined;

  constructor(path: string, onRemoved: () => void) {
    this.path = path;
    this.#onRemoved = onRemoved;
  }

  /** A new file in the folder and the stream that writes it; the folder closes the stream if it is still open when removed. */
  createFile(name: string): { path: string; stream: WriteStream } {
    if (this.#removed) throw new Error(`the upload folder ${this.path} was removed`);
    const path = join(this.path, name);
    const stream = createWriteStream(path);
    this.#streams.add(stream);
    stream.once('close', () => this.#streams.delete(stream));
    return { path, stream };
  }

  /** Closes what is still open and removes the folder with whatever it still holds. Idempotent. */
  remove(): Promise<void> {
    this.#removed ??= (async () => {
      await Promise.all([...this.#streams].map(closed));
      await rm(this.path, { recursive: true, force: true });
      this.#onRemoved();
    })();
    return this.#removed;
  }
}

/** Resolves once the stream has closed its file descriptor, destroying it first if it is still writing. */
function closed(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.closed) return resolve();
    stream.once('close', () => resolve());
    // A stream destroyed with an error would emit it; the writer (a pipeline) reports its own.
    stream.on('error', () => {});
    stream.destroy();
  });
}

export class UploadFolders {
  readonly #root: string;
  readonly #open = new Set<UploadFolder>();

  constructor(root: string) {
    this.#root = root;
  }

  /** A new folder for the upload of request `id` (a UUID the service made, never the client). */
  async open(id: string): Promise<UploadFolder> {
    const path = join(this.#root, id);
    await mkdir(path, { recursive: true });
    const folder = new UploadFolder(path, () => this.#open.delete(folder));
    this.#open.add(folder);
    return folder;
  }

  /** Removes every folder still open (their requests were cut by a shutdown) and waits until they are gone. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#open].map((folder) => folder.remove()));
  }

  /** Removes what a previous process left here (it died during uploads): call before the first request. */
  async clearStale(): Promise<void> {
    await rm(this.#root, { recursive: true, force: true });
  }
}
