/**
 * The listing parser on real listings: 7-Zip's `l -slt` of archives made by Info-ZIP (`zip -y`), 7-Zip
 * (`-snl`) and bsdtar, with symbolic links, folders and files, shows links in a ZIP or 7z only through their
 * attributes (` lrwxrwxrwx`, `A lrwxrwxrwx`); a ZIP whose comment forges the separator line and fake members,
 * a ZIP entry marked as a Windows reparse point, and one with a Unix device mode.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type ListedContainer,
  listMembers,
  type Member,
  parseListing,
} from '../../../src/processors/archive-tools/listing.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-archive-listing-');

/** A small tree with a file, a folder, a link inside and a link that climbs out. */
let trees = 0;
function tree(): string {
  const root = join(scratch(), `tree-${trees++}`);
  mkdirSync(join(root, 'docs'), { recursive: true });
  writeFileSync(join(root, 'notes.txt'), 'notes\n');
  writeFileSync(join(root, 'docs/readme.txt'), 'readme\n');
  symlinkSync('notes.txt', join(root, 'to-notes'));
  symlinkSync('../../../etc/passwd', join(root, 'docs/out'));
  return root;
}

async function list(archive: string, container: ListedContainer): Promise<Member[]> {
  const workDir = join(scratch(), `list-${Math.random().toString(36).slice(2)}`);
  mkdirSync(workDir);
  const run = {
    deadline: new Deadline(60_000, 'the test'),
    signal: new AbortController().signal,
    workDir,
    // The archive lies outside the work folder: the sandbox shows it read-only, as a job's input.
    inputs: [archive],
  };
  return listMembers(archive, container, run, { password: undefined, memoryBytes: 2 * 1024 ** 3 });
}

const byName = (members: Member[]) =>
  Object.fromEntries(members.map((m) => [m.path.replace(/^\.\//, ''), [m.type, m.linkTarget]]));

test('real listings: links are links in ZIP and 7z (targets unknown) and in TAR (targets named)', async () => {
  const root = tree();
  const zip = join(scratch(), 'tree.zip');
  const sevenZip = join(scratch(), 'tree.7z');
  const tar = join(scratch(), 'tree.tar');
  execFileSync('zip', ['-q', '-r', '-y', zip, '.'], { cwd: root });
  execFileSync('7zz', ['a', '-bd', '-snl', sevenZip, '.'], { cwd: root, stdio: 'pipe' });
  execFileSync('bsdtar', ['-cf', tar, '.'], { cwd: root });
  const expected = (targets: boolean) => ({
    'notes.txt': ['file', undefined],
    docs: ['folder', undefined],
    'docs/readme.txt': ['file', undefined],
    'to-notes': ['symlink', targets ? 'notes.txt' : undefined],
    'docs/out': ['symlink', targets ? '../../../etc/passwd' : undefined],
  });
  assert.deepEqual(byName(await list(zip, 'zip')), expected(false));
  assert.deepEqual(byName(await list(sevenZip, '7z')), expected(false));
  const tarred = byName(await list(tar, 'tar'));
  delete tarred['.'];
  assert.deepEqual(tarred, expected(true));
});

test('a real listing as 7-Zip prints it: the attribute forms of a ZIP and a 7z link', () => {
  const root = tree();
  const zip = join(scratch(), 'attributes.zip');
  execFileSync('zip', ['-q', '-y', zip, 'to-notes', 'notes.txt'], { cwd: root });
  const text = execFileSync('7zz', ['l', '-slt', '-tzip', zip]).toString('latin1');
  assert.match(text, /\nAttributes = {2}lrwxrwxrwx\n/, 'ZIP: no Windows letters, then the Unix mode');
  assert.deepEqual(
    parseListing(text).map((m) => [m.path, m.type]),
    [
      ['to-notes', 'symlink'],
      ['notes.txt', 'file'],
    ],
  );
  const sevenZip = join(scratch(), 'attributes.7z');
  execFileSync('7zz', ['a', '-bd', '-snl', sevenZip, 'to-notes'], { cwd: root, stdio: 'pipe' });
  const seven = execFileSync('7zz', ['l', '-slt', '-t7z', sevenZip]).toString('latin1');
  assert.match(seven, /\nAttributes = A lrwxrwxrwx\n/);
  assert.equal(parseListing(seven)[0]?.type, 'symlink');
});

test('an archive comment that forges the separator and members adds nothing: members start after the last one', async () => {
  const dir = join(scratch(), 'comment');
  mkdirSync(dir);
  writeFileSync(join(dir, 'real.txt'), 'real\n');
  const zip = join(dir, 'comment.zip');
  execFileSync('zip', ['-q', zip, 'real.txt'], { cwd: dir });
  const forged = 'hello\n----------\nPath = forged\nSize = 1\nAttributes =  lrwxrwxrwx\n\nPath = other\n';
  execFileSync('zip', ['-q', '-z', zip], { input: `${forged}.\n` });
  const text = execFileSync('7zz', ['l', '-slt', '-tzip', zip]).toString('latin1');
  assert.match(text, /Path = forged/, 'the comment is printed');
  assert.deepEqual(
    (await list(zip, 'zip')).map((m) => m.path),
    ['real.txt'],
  );
});

/** A one-member ZIP whose central-directory entry says it was made on `host` with `attributes`. */
function zipWithAttributes(name: string, host: number, attributes: number): string {
  const dir = join(scratch(), name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'member'), '../../../etc/passwd');
  const zip = join(dir, `${name}.zip`);
  execFileSync('zip', ['-q', '-X', zip, 'member'], { cwd: dir });
  const bytes = readFileSync(zip);
  const central = bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1'));
  bytes.writeUInt8(host, central + 5);
  bytes.writeUInt32LE(attributes >>> 0, central + 38);
  writeFileSync(zip, bytes);
  return zip;
}

test('ZIP attributes: a Windows reparse point is a link, a Unix device or FIFO is special, MS-DOS folders and files', async () => {
  const cases: [string, number, number, Member['type']][] = [
    ['reparse', 0, 0x400 | 0x20, 'symlink'],
    ['unix-link', 3, (0o120777 << 16) | 0x20, 'symlink'],
    ['device', 3, 0o020666 << 16, 'special'],
    ['fifo', 3, 0o010666 << 16, 'special'],
    ['dos-folder', 0, 0x10, 'folder'],
    ['dos-file', 0, 0x20, 'file'],
  ];
  for (const [name, host, attributes, type] of cases) {
    const members = await list(zipWithAttributes(name, host, attributes), 'zip');
    assert.equal(members[0]?.type, type, name);
  }
});

test('names are kept byte for byte (a ZIP from an old Windows tool names in CP437, not UTF-8)', async () => {
  const dir = join(scratch(), 'cp437');
  mkdirSync(dir);
  writeFileSync(join(dir, 'cafe.txt'), 'x');
  const zip = join(dir, 'cp437.zip');
  execFileSync('zip', ['-q', '-X', zip, 'cafe.txt'], { cwd: dir });
  const bytes = readFileSync(zip);
  // `é` in CP437 is 0x82, which is not UTF-8 on its own.
  writeFileSync(zip, Buffer.from(bytes.toString('latin1').replaceAll('cafe.txt', 'caf\x82.txt'), 'latin1'));
  const [member] = await list(zip, 'zip');
  assert.equal(member?.bytes, 'caf\x82.txt');
  assert.equal(member?.path, 'caf\uFFFD.txt', 'shown as UTF-8, with a replacement character');
});
