/**
 * The unpacked folder, checked against the listing before anything reads it: walked with lstat (no link is
 * ever followed), every entry must be a listed member (or a folder above one) of the type the listing gave,
 * every listed member must be there, and nothing may lead out of the folder: no device, FIFO or socket, no
 * symbolic link that resolves outside (links.ts; a ZIP or 7z link's target is in its data, so this is where
 * it is first seen), no file that has hard links outside (its link count is more than the folder holds).
 * The unpacker is one parser and 7-Zip's listing another: whatever they disagree on is refused here.
 *
 * Names are handled byte for byte (strings of one character per byte, `latin1`), the way they are on disk.
 */
import { lstat, readdir, readlink } from 'node:fs/promises';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { pathKey, resolveLink, type TreeNode } from './links.ts';
import type { Member, MemberType } from './listing.ts';

export interface UnpackedTree {
  /** Regular files (paths relative to the folder, as UTF-8), in listing order: what deep mode may process. */
  files: string[];
  /** The names a packer is given for the listed members, in listing order, byte for byte (`latin1`). */
  packNames: string[];
}

interface Found {
  node: NonNullable<TreeNode>;
  /** Device and inode, for files with more than one link. */
  inode?: string;
  links?: number;
}

/**
 * How a listed name is matched to a name on disk: bsdtar turns `\` into `/` in archives written on Windows,
 * so both sides compare with `\` as a separator. Links are resolved on the exact names (pathKey).
 */
const matchKey = (path: string) => pathKey(path.replaceAll('\\', '/'));

/** lstat calls in flight at once: one at a time took 2-4 s for 50,000 members, the listing's limit. */
const INSPECTED_AT_ONCE = 64;

const KINDS: Record<MemberType, NonNullable<TreeNode>['kind']> = {
  file: 'file',
  hardlink: 'file',
  folder: 'folder',
  symlink: 'symlink',
  special: 'file',
};

export async function checkUnpackedTree(folder: string, members: Member[]): Promise<UnpackedTree> {
  const expected = expectedKinds(members);
  const found = new Map<string, Found>();
  const byMatch = new Map<string, string>();
  const folders = [''];
  while (folders.length > 0) {
    const dir = folders.pop()!;
    const names = await readdir(onDisk(folder, dir), { encoding: 'buffer' }).catch(unreadable(dir));
    const rels = names.map((name) => (dir === '' ? '' : `${dir}/`) + name.toString('latin1'));
    // Every name is checked against the listing before any is inspected: an unlisted one ends the walk.
    for (const rel of rels) {
      const key = matchKey(rel);
      if (!expected.has(key)) refuse(`it unpacked ${show(rel)}, which its listing does not hold`);
      if (byMatch.has(key)) refuse(`two members unpacked to the name ${show(rel)}`);
      byMatch.set(key, rel);
    }
    for (let i = 0; i < rels.length; i += INSPECTED_AT_ONCE) {
      const batch = rels.slice(i, i + INSPECTED_AT_ONCE);
      const entries = await Promise.all(batch.map((rel) => inspect(folder, rel)));
      batch.forEach((rel, j) => {
        const entry = entries[j]!;
        const kinds = expected.get(matchKey(rel))!;
        if (!kinds.has(entry.node.kind)) {
          refuse(
            `the member ${show(rel)} was listed as a ${[...kinds].join(' or ')} but unpacked as a ${entry.node.kind}`,
          );
        }
        found.set(rel, entry);
        if (entry.node.kind === 'folder') folders.push(rel);
      });
    }
  }
  for (const member of members) {
    if (matchKey(member.bytes) !== '' && !byMatch.has(matchKey(member.bytes))) {
      refuse(`the member ${show(member.bytes)} was listed but not unpacked`);
    }
  }
  checkHardLinks(found);
  for (const [rel, entry] of found) {
    if (entry.node.kind !== 'symlink') continue;
    const verdict = await resolveLink(rel, entry.node.target ?? '', (key) => found.get(key)?.node);
    if (verdict === 'outside') refuse(`the member ${show(rel)} links outside the archive's folder`);
    if (verdict !== 'inside') refuse(`the member ${show(rel)} is a link that cannot be resolved (a loop)`);
  }
  return describe(members, found, byMatch);
}

/** The kinds each listed name may have on disk, and the folders above them (unpackers create those). */
function expectedKinds(members: Member[]): Map<string, Set<string>> {
  const expected = new Map<string, Set<string>>();
  const allow = (key: string, kind: string) => {
    const kinds = expected.get(key) ?? new Set<string>();
    kinds.add(kind);
    expected.set(key, kinds);
  };
  for (const member of members) {
    const key = matchKey(member.bytes);
    if (key === '') continue;
    allow(key, KINDS[member.type]);
    const parts = key.split('/');
    for (let i = 1; i < parts.length; i++) allow(parts.slice(0, i).join('/'), 'folder');
  }
  return expected;
}

async function inspect(folder: string, rel: string): Promise<Found> {
  const path = onDisk(folder, rel);
  const stats = await lstat(path).catch(unreadable(rel));
  if (stats.isDirectory()) return { node: { kind: 'folder' } };
  if (stats.isSymbolicLink()) {
    const target = await readlink(path, { encoding: 'buffer' }).catch(unreadable(rel));
    return { node: { kind: 'symlink', target: target.toString('latin1') } };
  }
  if (!stats.isFile()) refuse(`the member ${show(rel)} unpacked as a device, FIFO or socket`);
  return { node: { kind: 'file' }, inode: `${stats.dev}:${stats.ino}`, links: stats.nlink };
}

/** A file linked more times than the folder holds links to it is also linked from outside the folder. */
function checkHardLinks(found: Map<string, Found>): void {
  const seen = new Map<string, number>();
  for (const entry of found.values()) {
    if (entry.inode !== undefined && (entry.links ?? 1) > 1)
      seen.set(entry.inode, (seen.get(entry.inode) ?? 0) + 1);
  }
  for (const [rel, entry] of found) {
    if (entry.inode !== undefined && (entry.links ?? 1) > (seen.get(entry.inode) ?? 1)) {
      refuse(`the member ${show(rel)} is a hard link to a file outside the archive's folder`);
    }
  }
}

function describe(members: Member[], found: Map<string, Found>, byMatch: Map<string, string>): UnpackedTree {
  const files: string[] = [];
  const packNames: string[] = [];
  const done = new Set<string>();
  for (const member of members) {
    const key = matchKey(member.bytes);
    if (done.has(key)) continue;
    done.add(key);
    if (key === '') {
      // The archive's own root (`.` in a TAR made with `tar -cf x.tar .`) is kept as it was listed.
      if (member.type === 'folder') packNames.push(member.bytes);
      continue;
    }
    const rel = byMatch.get(key)!;
    // The listed name when it names the same entry (`./a` keeps its `./`), else the name on disk.
    packNames.push(pathKey(member.bytes) === rel ? member.bytes : rel);
    const utf8 = Buffer.from(rel, 'latin1').toString('utf8');
    // A name that is not UTF-8 cannot be handed to a processor as a path: deep mode leaves it as it is.
    if (found.get(rel)?.node.kind === 'file' && Buffer.from(utf8, 'utf8').toString('latin1') === rel)
      files.push(utf8);
  }
  return { files, packNames };
}

/** The absolute path of `rel` (bytes as `latin1`) under `folder`, as bytes. */
function onDisk(folder: string, rel: string): Buffer {
  return Buffer.concat([Buffer.from(folder), Buffer.from(rel === '' ? '' : `/${rel}`, 'latin1')]);
}

function show(rel: string): string {
  return JSON.stringify(Buffer.from(rel.slice(0, 200), 'latin1').toString('utf8'));
}

function unreadable(rel: string) {
  return (error: unknown): never => {
    throw new UnprocessableInputError(
      `The archive was refused after unpacking: the member ${show(rel)} cannot be read back.`,
      error,
    );
  };
}

function refuse(why: string): never {
  throw new UnprocessableInputError(`The archive was refused after unpacking: ${why}.`);
}
