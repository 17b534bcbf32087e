/**
 * Where links lead (links.ts) and the unpacked tree's check against the listing (tree-check.ts), on trees
 * made here: a link whose letters stay inside but which climbs through another link, loops, links whose
 * target is not known yet; and unpacked folders that differ from their listing (an unlisted file, a link
 * where a file was listed, a FIFO, a file hard-linked from outside, a listed member missing).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { resolveLink, type TreeNode } from '../../../src/processors/archive-tools/links.ts';
import type { Member, MemberType } from '../../../src/processors/archive-tools/listing.ts';
import { checkUnpackedTree } from '../../../src/processors/archive-tools/tree-check.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-archive-tree-');

function lookupOf(nodes: Record<string, NonNullable<TreeNode>>) {
  return (key: string) => nodes[key];
}

test('links resolve through the other links of the tree, the way the kernel does', async () => {
  const tree = lookupOf({
    a: { kind: 'folder' },
    'a/b': { kind: 'folder' },
    'a/b/up': { kind: 'symlink', target: '../..' },
    'a/b/file': { kind: 'file' },
    loop: { kind: 'symlink', target: 'loop' },
    zip: { kind: 'symlink', target: undefined },
  });
  assert.equal(await resolveLink('x', 'a/b/file', tree), 'inside');
  assert.equal(await resolveLink('a/b/y', '../../a', tree), 'inside');
  assert.equal(await resolveLink('x', '../x', tree), 'outside', 'climbs by its letters');
  assert.equal(await resolveLink('x', '/etc/passwd', tree), 'outside', 'absolute');
  // `a/b/up` is the root: `a/b/up/..` is above it, where the letters say `a`.
  assert.equal(await resolveLink('x', 'a/b/up/../..', tree), 'outside', 'climbs through another link');
  assert.equal(await resolveLink('x', 'a/b/up/a/b/file', tree), 'inside');
  assert.equal(await resolveLink('x', 'loop', tree), 'loop');
  assert.equal(
    await resolveLink('x', 'zip/..', tree),
    'unknown',
    'through a link whose target is not known yet',
  );
  // A missing component or a file in the middle ends the kernel's walk; the rest still cannot climb out.
  assert.equal(await resolveLink('x', 'missing/../..', tree), 'outside');
  assert.equal(await resolveLink('x', 'a/b/file/../../../..', tree), 'outside');
  assert.equal(await resolveLink('x', 'missing/../a', tree), 'inside');
});

function member(path: string, type: MemberType): Member {
  return {
    path,
    bytes: path,
    type,
    size: 0,
    packedSize: undefined,
    offset: undefined,
    linkTarget: undefined,
    encrypted: false,
  };
}

let folders = 0;
/** An unpacked folder: `docs/readme.txt`, `notes.txt`, `to-notes -> notes.txt`, then `change` applied. */
function unpacked(change: (root: string) => void = () => {}): { root: string; members: Member[] } {
  const root = join(scratch(), `unpacked-${folders++}`, 'members');
  mkdirSync(join(root, 'docs'), { recursive: true });
  writeFileSync(join(root, 'notes.txt'), 'notes\n');
  writeFileSync(join(root, 'docs/readme.txt'), 'readme\n');
  symlinkSync('notes.txt', join(root, 'to-notes'));
  change(root);
  const members = [
    member('./docs/', 'folder'),
    member('./docs/readme.txt', 'file'),
    member('./notes.txt', 'file'),
    member('./to-notes', 'symlink'),
  ];
  return { root, members };
}

async function assertRefused(tree: { root: string; members: Member[] }, why: RegExp): Promise<void> {
  await assert.rejects(checkUnpackedTree(tree.root, tree.members), (error: unknown) => {
    assert.ok(error instanceof PressoError, String(error));
    assert.equal(error.statusCode, 422);
    assert.match(error.message, /^The archive was refused after unpacking: /);
    assert.match(error.message, why);
    return true;
  });
}

test('a tree that matches its listing passes: its files in listing order, names for a packer as listed', async () => {
  const { root, members } = unpacked();
  const tree = await checkUnpackedTree(root, members);
  assert.deepEqual(tree.files, ['docs/readme.txt', 'notes.txt']);
  assert.deepEqual(tree.packNames, ['./docs/', './docs/readme.txt', './notes.txt', './to-notes']);
});

test('what the listing does not say is refused: an extra file, a different type, a FIFO, a missing member', async () => {
  await assertRefused(
    unpacked((root) => writeFileSync(join(root, 'docs/extra'), 'x')),
    /unpacked "docs\/extra", which its listing does not hold/,
  );
  await assertRefused(
    unpacked((root) => {
      execFileSync('rm', [join(root, 'notes.txt')]);
      symlinkSync('docs', join(root, 'notes.txt'));
    }),
    /"notes.txt" was listed as a file but unpacked as a symlink/,
  );
  const withFifo = unpacked((root) => execFileSync('mkfifo', [join(root, 'pipe')]));
  withFifo.members.push(member('pipe', 'file'));
  await assertRefused(withFifo, /"pipe" unpacked as a device, FIFO or socket/);
  await assertRefused(
    unpacked((root) => execFileSync('rm', [join(root, 'docs/readme.txt')])),
    /"\.\/docs\/readme.txt" was listed but not unpacked/,
  );
});

test('links out of the folder are refused: a symbolic link that leads out, a file hard-linked from outside', async () => {
  await assertRefused(
    unpacked((root) => {
      execFileSync('rm', [join(root, 'to-notes')]);
      symlinkSync('docs/../..', join(root, 'to-notes'));
    }),
    /"to-notes" links outside the archive's folder/,
  );
  await assertRefused(
    unpacked((root) => {
      const outside = join(root, '..', 'outside.txt');
      writeFileSync(outside, 'secret\n');
      execFileSync('rm', [join(root, 'notes.txt')]);
      linkSync(outside, join(root, 'notes.txt'));
    }),
    /"notes.txt" is a hard link to a file outside the archive's folder/,
  );
  // Two names of one file, both inside, are a hard link the archive may hold.
  const inside = unpacked((root) => linkSync(join(root, 'notes.txt'), join(root, 'docs/same.txt')));
  inside.members.push(member('docs/same.txt', 'hardlink'));
  await checkUnpackedTree(inside.root, inside.members);
});
