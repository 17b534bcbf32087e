/**
 * Archives for the tests, made by the usual tools from a small real tree: a corpus photo PNG, text, a
 * sub-folder, a relative symlink, a private (0600) file and fixed times; and hostile ones (bombs, escapes,
 * devices, overlapping ZIP entries) made the way attackers make them.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { corpus } from '../../support/corpus.ts';

const run = (cwd: string, command: string, args: string[]) =>
  execFileSync(command, args, { cwd, stdio: 'pipe' });

export const TREE_TIME = new Date('2024-03-01T12:00:00Z');

/** The tree's files (relative path → content) besides the photo, to compare after a round trip. */
export const TEXT_FILES: Record<string, string> = {
  'notes.txt': 'Presso archive test.\n'.repeat(200),
  'docs/readme.md': '# Readme\n\nSome words that deflate well. '.repeat(300),
  'docs/private.txt': 'only for the owner\n',
};

/**
 * The tree's photo: a 192×144 PNG crop of the corpus cat (the whole 451×300 PNG was 240 KB). Every format's
 * compressor and deep mode's image search cost by its bytes and pixels, and no property tested depends on
 * its size.
 */
export const PHOTO = await sharp(corpus.chelsea)
  .extract({ left: 130, top: 80, width: 192, height: 144 })
  .png()
  .toBuffer();

export function writeTree(dir: string): string {
  const root = join(dir, 'tree');
  mkdirSync(join(root, 'docs'), { recursive: true });
  for (const [name, text] of Object.entries(TEXT_FILES)) writeFileSync(join(root, name), text);
  execFileSync('chmod', ['600', join(root, 'docs/private.txt')]);
  writeFileSync(join(root, 'docs/photo.png'), PHOTO);
  symlinkSync('notes.txt', join(root, 'link-to-notes'));
  for (const name of ['notes.txt', 'docs/readme.md', 'docs/private.txt', 'docs/photo.png']) {
    utimesSync(join(root, name), TREE_TIME, TREE_TIME);
  }
  return root;
}

/** Every input format, from the same tree. */
export function writeArchives(dir: string) {
  const root = writeTree(dir);
  const out = (name: string) => join(dir, name);
  run(root, 'zip', ['-q', '-r', '-y', '-6', out('tree.zip'), '.']);
  run(root, 'tar', ['-cf', out('tree.tar'), '.']);
  run(dir, 'gzip', ['-6', '-k', '-n', out('tree.tar')]);
  run(dir, 'bzip2', ['-k', out('tree.tar')]);
  run(dir, 'xz', ['-k', '-3', out('tree.tar')]);
  run(dir, 'zstd', ['-q', '-3', out('tree.tar'), '-o', out('tree.tar.zst')]);
  run(root, '7zz', ['a', '-bd', '-mx=3', '-snl', out('tree.7z'), '.']);
  writeFileSync(out('notes.txt'), TEXT_FILES['notes.txt']!);
  run(dir, 'gzip', ['-1', '-k', '-n', out('notes.txt')]);
  run(dir, 'xz', ['-k', '-0', out('notes.txt')]);
  run(dir, 'zstd', ['-q', '-1', out('notes.txt'), '-o', out('notes.txt.zst')]);
  run(dir, 'bzip2', ['-k', out('notes.txt')]);
  return {
    zip: out('tree.zip'),
    tar: out('tree.tar'),
    'tar.gz': out('tree.tar.gz'),
    'tar.bz2': out('tree.tar.bz2'),
    'tar.xz': out('tree.tar.xz'),
    'tar.zst': out('tree.tar.zst'),
    '7z': out('tree.7z'),
    gz: out('notes.txt.gz'),
    xz: out('notes.txt.xz'),
    zst: out('notes.txt.zst'),
    bz2: out('notes.txt.bz2'),
  };
}

/** 100 MB of zeros in a gzip stream of about 100 KB (ratio 1000), and the same as a ZIP member. */
export function writeBombs(dir: string): { gzip: string; zip: string } {
  const zeros = join(dir, 'zeros.bin');
  execFileSync('bash', ['-c', `head -c 100M /dev/zero > '${zeros}'`]);
  run(dir, 'gzip', ['-k', '-9', '-n', zeros]);
  run(dir, 'zip', ['-q', '-9', join(dir, 'zeros.zip'), 'zeros.bin']);
  execFileSync('rm', [zeros]);
  return { gzip: `${zeros}.gz`, zip: join(dir, 'zeros.zip') };
}

/** Two ZIP members whose central-directory entries point at the same local header and data. */
export function writeOverlappingZip(dir: string): string {
  const a = join(dir, 'a.txt');
  writeFileSync(a, 'x'.repeat(5000));
  copyFileSync(a, join(dir, 'b.txt'));
  const zip = join(dir, 'overlap.zip');
  run(dir, 'zip', ['-q', '-X', zip, 'a.txt', 'b.txt']);
  const bytes = readFileSync(zip);
  // The second central-directory record (signature PK\1\2) gets the first member's local header offset (0).
  const second = bytes.indexOf(
    Buffer.from('PK\x01\x02', 'latin1'),
    bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1')) + 4,
  );
  bytes.writeUInt32LE(0, second + 42);
  writeFileSync(zip, bytes);
  return zip;
}

/** TARs written with bsdtar's -P and an mtree spec: a `..` path, an absolute symlink, a character device. */
export function writeEscapes(dir: string): { dotdot: string; absoluteLink: string; device: string } {
  writeFileSync(join(dir, 'plain.txt'), 'hello\n');
  run(dir, 'bsdtar', ['-cf', 'dotdot.tar', '-P', '-s', ',^plain.txt$,../../escaped.txt,', 'plain.txt']);
  symlinkSync('/etc/passwd', join(dir, 'passwd-link'));
  run(dir, 'bsdtar', ['-cf', 'abslink.tar', 'passwd-link', 'plain.txt']);
  writeFileSync(
    join(dir, 'device.mtree'),
    '#mtree\n./null type=char mode=0666 uname=root gname=root device=native,1,3\n',
  );
  run(dir, 'bsdtar', ['-cf', 'device.tar', '@device.mtree']);
  return {
    dotdot: join(dir, 'dotdot.tar'),
    absoluteLink: join(dir, 'abslink.tar'),
    device: join(dir, 'device.tar'),
  };
}
