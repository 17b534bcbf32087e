/**
 * The batch's inputs and its manifest. Inputs: files given, and folders walked recursively, filtered by
 * include/exclude globs on the path relative to the folder given. The manifest (`.presso-manifest.json`
 * beside the outputs) records, per input, the SHA-1 of the input that was compressed and the output
 * written, so `--resume` skips exactly the files already done with unchanged input.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join, matchesGlob, relative, resolve, sep } from 'node:path';

export interface Input {
  /** Absolute path. */
  path: string;
  /** Path relative to the folder it was found in (or its base name): also its place under --out. */
  relative: string;
  size: number;
}

export interface Filters {
  include: string[];
  exclude: string[];
}

export const MANIFEST_NAME = '.presso-manifest.json';

const posix = (path: string) => path.split(sep).join('/');

function wanted(relativePath: string, filters: Filters): boolean {
  const name = basename(relativePath);
  const matches = (glob: string) => matchesGlob(relativePath, glob) || matchesGlob(name, glob);
  if (filters.include.length > 0 && !filters.include.some(matches)) return false;
  return !filters.exclude.some(matches);
}

export async function collectInputs(targets: string[], filters: Filters, skipDir?: string): Promise<Input[]> {
  const inputs: Input[] = [];
  const seen = new Set<string>();
  const add = (path: string, rel: string, size: number) => {
    if (seen.has(path)) return;
    seen.add(path);
    inputs.push({ path, relative: rel, size });
  };
  for (const target of targets) {
    const root = resolve(target);
    const info = await stat(root);
    if (info.isFile()) {
      add(root, basename(root), info.size);
      continue;
    }
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || entry.name === MANIFEST_NAME) continue;
      const path = join(entry.parentPath, entry.name);
      if (skipDir && (path + sep).startsWith(skipDir + sep)) continue;
      const rel = posix(relative(root, path));
      if (!wanted(rel, filters)) continue;
      add(path, rel, (await stat(path)).size);
    }
  }
  return inputs.sort((a, b) => a.relative.localeCompare(b.relative));
}

export function sha1File(path: string): Promise<string> {
  return new Promise((ok, fail) => {
    const hash = createHash('sha1');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', fail)
      .on('end', () => ok(hash.digest('hex')));
  });
}

export interface ManifestEntry {
  inputSha1: string;
  /** Output path relative to the manifest's folder (absent when the output went to a store). */
  output?: string;
  outputSha1: string;
  url: string;
  bytesIn: number;
  bytesOut: number;
}

/** The manifest, saved after every file (atomically, one write at a time) so an interrupt loses nothing. */
export class Manifest {
  readonly path: string;
  readonly entries: Record<string, ManifestEntry>;
  #saving: Promise<void> = Promise.resolve();

  private constructor(path: string, entries: Record<string, ManifestEntry>) {
    this.path = path;
    this.entries = entries;
  }

  static async open(folder: string): Promise<Manifest> {
    const path = join(folder, MANIFEST_NAME);
    const text = await readFile(path, 'utf8').catch(() => '{"files":{}}');
    const parsed = JSON.parse(text) as { files?: Record<string, ManifestEntry> };
    return new Manifest(path, parsed.files ?? {});
  }

  /** Whether `input` (of this SHA-1) was done and its output is still there, unchanged in size. */
  async done(relativePath: string, inputSha1: string, folder: string): Promise<ManifestEntry | undefined> {
    const entry = this.entries[relativePath];
    if (!entry || entry.inputSha1 !== inputSha1) return undefined;
    if (entry.output === undefined) return entry;
    const output = await stat(join(folder, entry.output)).catch(() => undefined);
    return output?.size === entry.bytesOut ? entry : undefined;
  }

  record(relativePath: string, entry: ManifestEntry): Promise<void> {
    this.entries[relativePath] = entry;
    this.#saving = this.#saving.then(async () => {
      const partial = `${this.path}.tmp`;
      await writeFile(partial, `${JSON.stringify({ version: 1, files: this.entries }, null, 1)}\n`);
      await rename(partial, this.path);
    });
    return this.#saving;
  }
}
