/**
 * A temporary directory for one test file: created before its tests, removed after them. Replaces the
 * `let scratch; before(mkdtemp); after(rm)` block each file used to repeat.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

/** Registers the hooks at the level it is called (file or suite); returns the directory's getter. */
export function useScratch(prefix: string): () => string {
  let dir: string | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error(`scratch ${prefix} used outside its tests`);
    return dir;
  };
}
