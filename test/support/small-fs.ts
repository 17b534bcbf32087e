/**
 * A real, small filesystem that a test can fill to the last byte: a tmpfs mounted for the test
 * (needs root, as in CI). Writes on it fail the way a full disk does (ENOSPC; SQLite: "database or
 * disk is full"), which no mock of the fs module reproduces across sharp, SQLite and undici.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SmallFs {
  dir: string;
  /** Writes a filler file until not one more byte fits. */
  fill(): Promise<void>;
  /** Removes the filler: the space is back. */
  free(): Promise<void>;
  unmount(): Promise<void>;
}

/** Mounts at `at` (created if missing) or at a new temporary directory, removed again on unmount. */
export async function mountSmallFs(sizeMiB: number, at?: string): Promise<SmallFs> {
  if (at !== undefined) await mkdir(at, { recursive: true });
  const dir = at ?? (await mkdtemp(join(tmpdir(), 'presso-small-fs-')));
  await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0755`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill() {
      const handle = await open(filler, 'a');
      try {
        // Big chunks first, then smaller ones, so the last partial page is taken too.
        for (const size of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
          const chunk = Buffer.alloc(size, 0x5a);
          for (;;) {
            try {
              await handle.write(chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        await handle.close();
      }
    },
    async free() {
      await rm(filler, { force: true });
    },
    async unmount() {
      // Lazy: a file a failed test left open must not keep the mount (and the temp dir) around.
      await run('umount', ['-l', dir]).catch(() => {});
      if (at === undefined) await rmdir(dir).catch(() => {});
    },
  };
}
