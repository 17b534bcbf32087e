/**
 * The archive-bomb and path-escape checks, on the listing, before anything is unpacked. Each refusal is a
 * 422 that says which limit or which member; the tools that unpack afterwards also run with a file-size
 * limit, so a listing that lies (sizes in a ZIP's directory are the archive's own claim) cannot fill the disk.
 * Links are resolved through the listed tree (links.ts): a TAR names its link targets; a ZIP or 7z link's
 * target is in its data, seen once unpacked (tree-check.ts, which checks everything again on disk).
 */
import { posix } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { pathKey, resolveLink, type TreeNode } from './links.ts';
import type { Member } from './listing.ts';

/** The caps a listing is checked against (the archive processor's, or a bundle's tighter ones). */
export interface SafetyLimits {
  maxMembers: number;
  maxUnpackedBytes: number;
  maxRatio: number;
}

/** Below this unpacked size the ratio is not checked: small archives of text reach ratios of 100 honestly. */
const RATIO_FLOOR_BYTES = 64 * 1024 ** 2;

export interface UnpackBudget {
  /** Bytes still allowed to unpack, over every nesting level of one request. */
  remainingBytes: number;
}

export async function checkMembers(
  members: Member[],
  packedBytes: number,
  limits: SafetyLimits,
  budget: UnpackBudget,
): Promise<void> {
  if (members.length > limits.maxMembers) {
    refuse(`it has ${members.length} members, more than the limit of ${limits.maxMembers}`);
  }
  const unpacked = members.reduce((sum, m) => sum + (m.type === 'file' ? m.size : 0), 0);
  if (unpacked > budget.remainingBytes) {
    refuse(`it unpacks to ${unpacked} bytes, more than the limit of ${limits.maxUnpackedBytes}`);
  }
  if (unpacked > RATIO_FLOOR_BYTES && unpacked > packedBytes * limits.maxRatio) {
    refuse(
      `it unpacks to ${Math.round(unpacked / Math.max(1, packedBytes))} times its size (limit ${limits.maxRatio})`,
    );
  }
  for (const member of members) checkMember(member);
  await checkLinks(members);
  checkOverlaps(members);
  budget.remainingBytes -= unpacked;
}

function checkMember(member: Member): void {
  if (escapes(member.bytes))
    refuse(`the member ${named(member)} would be written outside the archive's folder`);
  if (member.type === 'special') refuse(`the member ${named(member)} is a device or pipe`);
}

/**
 * A symbolic link must resolve inside the listed tree, through whatever other links it meets; a hard link
 * must name a file of the archive (a TAR's hard-link target is a path from the archive's root).
 */
async function checkLinks(members: Member[]): Promise<void> {
  const tree = listedTree(members);
  for (const member of members) {
    if (member.type === 'hardlink') {
      const target = member.linkTarget ?? '';
      if (escapes(target)) refuse(`the member ${named(member)} links outside the archive's folder`);
      if (tree.get(pathKey(target))?.kind !== 'file') {
        refuse(
          `the member ${named(member)} is a hard link to ${quoted(target)}, which is not a file of the archive`,
        );
      }
    }
    if (member.type !== 'symlink' || member.linkTarget === undefined) continue;
    const verdict = await resolveLink(pathKey(member.bytes), member.linkTarget, (key) => tree.get(key));
    if (verdict === 'outside') refuse(`the member ${named(member)} links outside the archive's folder`);
    if (verdict === 'loop') refuse(`the member ${named(member)} is a link that cannot be resolved (a loop)`);
  }
}

/** Each listed name's node (the last member of a name wins, as in unpacking), and the folders above them. */
function listedTree(members: Member[]): Map<string, NonNullable<TreeNode>> {
  const tree = new Map<string, NonNullable<TreeNode>>();
  for (const member of members) {
    const key = pathKey(member.bytes);
    const parts = key.split('/');
    for (let i = 1; i < parts.length; i++) {
      const above = parts.slice(0, i).join('/');
      if (!tree.has(above)) tree.set(above, { kind: 'folder' });
    }
    if (member.type === 'symlink') tree.set(key, { kind: 'symlink', target: member.linkTarget });
    else tree.set(key, { kind: member.type === 'folder' ? 'folder' : 'file' });
  }
  return tree;
}

const quoted = (name: string) => JSON.stringify(Buffer.from(name.slice(0, 200), 'latin1').toString('utf8'));
const named = (member: Member) => JSON.stringify(member.path.slice(0, 200));

/** Absolute, drive-qualified, or climbing above the root through `..`. */
export function escapes(path: string): boolean {
  const unified = path.replaceAll('\\', '/');
  if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified) || unified.includes('\0')) return true;
  const normal = posix.normalize(unified);
  return normal === '..' || normal.startsWith('../');
}

/**
 * Overlapping-entry bombs (Fifield, 2019) point many ZIP members at the same compressed bytes: every
 * member's data must end before the next member's header begins.
 */
function checkOverlaps(members: Member[]): void {
  const placed = members
    .filter((m) => m.offset !== undefined && m.packedSize !== undefined)
    .sort((a, b) => (a.offset as number) - (b.offset as number));
  for (let i = 1; i < placed.length; i++) {
    const previous = placed[i - 1]!;
    if ((previous.offset as number) + (previous.packedSize as number) > (placed[i]!.offset as number)) {
      refuse('members share the same compressed data (an overlapping-entry archive bomb)');
    }
  }
}

function refuse(why: string): never {
  throw new UnprocessableInputError(`The archive was refused before unpacking: ${why}.`);
}

/** What unpacking under an operator's archive settings needs: the caps plus each tool run's memory. */
export interface UnpackLimits extends SafetyLimits {
  toolMemoryBytes: number;
}
