/**
 * What a request left behind in a server's data directory: files and folders under the work folder and the
 * file store, and file descriptors the process still holds into them. The servers of the API tests run in
 * the test's own process, so their descriptors are this process's (/proc/self/fd).
 */
import { readdir, readlink, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { until } from './until.ts';

/** The folders a request may write to: the working folder (uploads, jobs) and the embedded file store. */
export function writableFolders(dataDir: string): string[] {
  return [join(dataDir, 'work'), join(dataDir, 'files')];
}

/** Every path under the writable folders, relative to the data directory, folders included. */
export async function entries(dataDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of writableFolders(dataDir)) {
    const listed = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of listed) found.push(relative(dataDir, join(entry.parentPath, entry.name)));
  }
  return found.sort();
}

/** Bytes on disk under the writable folders (allocated blocks, so a sparse or growing file counts as it is). */
export async function diskUsage(dataDir: string): Promise<number> {
  let total = 0;
  for (const path of await entries(dataDir)) {
    const info = await stat(join(dataDir, path)).catch(() => undefined);
    if (info?.isFile()) total += info.blocks * 512;
  }
  return total;
}

/** Where this process's open file descriptors point into the writable folders (a deleted file included). */
export async function openDescriptors(dataDir: string): Promise<string[]> {
  const folders = writableFolders(dataDir);
  const open: string[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (folders.some((folder) => target.startsWith(`${folder}/`))) open.push(target);
  }
  return open.sort();
}

/** The paths and open descriptors that name `id` (a request's or job's id), minus those `keep` accepts. */
export async function leftoversOf(
  dataDir: string,
  id: string,
  keep: (path: string) => boolean = () => false,
): Promise<string[]> {
  const paths = (await entries(dataDir)).filter((path) => path.includes(id) && !keep(path));
  const descriptors = (await openDescriptors(dataDir)).filter((target) => target.includes(id));
  return [...paths, ...descriptors.map((target) => `open: ${target}`)];
}

/**
 * Waits until nothing of `id` is left, then asserts it. Clean-up runs after the answer (a client that is
 * gone gets none), so it is polled for; only the shared hang guard limits the wait.
 */
export async function settledLeftoversOf(
  dataDir: string,
  id: string,
  keep?: (path: string) => boolean,
): Promise<string[]> {
  await until(async () => (await leftoversOf(dataDir, id, keep)).length === 0, 'clean-up', 20).catch(
    () => {},
  );
  return leftoversOf(dataDir, id, keep);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * Waits for a file whose path names a request id to appear (the upload being written, a download in
 * progress, a stored input), and returns that id. `known` ids are skipped (files of earlier requests).
 */
export async function nextWrittenId(
  dataDir: string,
  known: ReadonlySet<string> = new Set(),
): Promise<string> {
  return until(async () => {
    for (const path of await entries(dataDir)) {
      const id = UUID.exec(path)?.[0];
      if (id === undefined || known.has(id)) continue;
      if ((await stat(join(dataDir, path)).catch(() => undefined))?.isFile()) return id;
    }
    return undefined;
  }, 'a file being written');
}
