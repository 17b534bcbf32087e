/**
 * Hostile archives, made the way an attacker makes them: ZIPs by Info-ZIP (`zip -y` stores symbolic links as
 * links), 7z by 7-Zip (`-snl`), and TARs written header by header here (ustar), so a hard link can name any
 * path and members come in exactly the order given. The job's members folder is four levels below the data
 * directory (`<data>/work/<job>/process/members`): `../../../..` from it is the data directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** From the job's members folder up to the server's data directory. */
export const TO_DATA_DIR = '../../../..';

export type Entry =
  | { name: string; file: string }
  | { name: string; dir: true }
  | { name: string; symlink: string }
  | { name: string; hardlink: string };

/**
 * A symbolic link that stays inside the folder by its letters but leaves it through another link: `s`, six
 * folders down, points back up to the root; `escape` then climbs from `s` four more levels, which the kernel
 * counts from the root (`s` resolved), landing in the data directory, where a textual check ends in `a/b`.
 */
export const LEXICALLY_INSIDE_ESCAPE: Entry[] = [
  { name: 'a/b/c/d/e/f', dir: true },
  { name: 'a/b/c/d/e/f/s', symlink: '../../../../../..' },
  { name: 'escape', symlink: `a/b/c/d/e/f/s/${TO_DATA_DIR}` },
];

/** Writes `entries` (not hard links) as a folder tree; returns its root. */
export function writeTree(dir: string, entries: Entry[]): string {
  const root = join(dir, 'tree');
  mkdirSync(root, { recursive: true });
  for (const entry of entries) {
    const path = join(root, entry.name);
    mkdirSync(dirname(path), { recursive: true });
    if ('file' in entry) writeFileSync(path, entry.file);
    else if ('dir' in entry) mkdirSync(path, { recursive: true });
    else if ('symlink' in entry) symlinkSync(entry.symlink, path);
    else throw new Error('a ZIP or 7z cannot hold a hard link');
  }
  return root;
}

/** A ZIP by Info-ZIP with the links stored as links, members in the order of `entries`. */
export function zipOf(dir: string, entries: Entry[], name = 'hostile.zip'): string {
  const root = writeTree(join(dir, `${name}.d`), entries);
  const out = join(dir, name);
  const names = entries.map((e) => e.name);
  execFileSync('zip', ['-q', '-y', out, '-@'], { cwd: root, input: `${names.join('\n')}\n`, stdio: 'pipe' });
  return out;
}

/** A 7z by 7-Zip with the links stored as links (7-Zip orders members itself). */
export function sevenZipOf(dir: string, entries: Entry[], name = 'hostile.7z', password?: string): string {
  const root = writeTree(join(dir, `${name}.d`), entries);
  const out = join(dir, name);
  const crypt = password === undefined ? [] : [`-p${password}`];
  execFileSync('7zz', ['a', '-bd', '-snl', '-spd', ...crypt, '--', out, '.'], { cwd: root, stdio: 'pipe' });
  return out;
}

const COMPRESS: Record<string, string[]> = {
  gz: ['gzip', '-n', '-c'],
  bz2: ['bzip2', '-c'],
  xz: ['xz', '-c'],
  zst: ['zstd', '-q', '-c'],
};

/** A TAR written header by header (members exactly as given), compressed by `compressor` if given. */
export function tarOf(dir: string, entries: Entry[], name: string, compressor?: string): string {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = 'file' in entry ? Buffer.from(entry.file) : Buffer.alloc(0);
    blocks.push(ustarHeader(entry, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  const out = join(dir, name);
  writeFileSync(
    out,
    compressor === undefined
      ? tar
      : execFileSync(COMPRESS[compressor]![0]!, COMPRESS[compressor]!.slice(1), { input: tar }),
  );
  return out;
}

function ustarHeader(entry: Entry, size: number): Buffer {
  const header = Buffer.alloc(512);
  const put = (text: string, offset: number, length: number) => header.write(text, offset, length, 'utf8');
  const octal = (value: number, offset: number, length: number) =>
    put(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length);
  put('dir' in entry ? `${entry.name}/` : entry.name, 0, 100);
  octal('dir' in entry ? 0o755 : 'symlink' in entry ? 0o777 : 0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(1_700_000_000, 136, 12);
  const [type, link] =
    'symlink' in entry
      ? ['2', entry.symlink]
      : 'hardlink' in entry
        ? ['1', entry.hardlink]
        : 'dir' in entry
          ? ['5', '']
          : ['0', ''];
  put(type, 156, 1);
  put(link, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return header;
}
