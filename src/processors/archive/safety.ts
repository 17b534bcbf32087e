/**
 * The archive-bomb and path-escape checks, on the listing, before anything is unpacked. Each refusal is a
 * 422 that says which limit or which member; the tools that unpack afterwards also run with a file-size
 * limit, so a listing that lies (sizes in a ZIP's directory are the archive's own claim) cannot fill the disk.
 */
import { posix } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { ArchiveLimits } from './config.ts';
import type { Member } from './listing.ts';

/** Below this unpacked size the ratio is not checked: small archives of text reach ratios of 100 honestly. */
const RATIO_FLOOR_BYTES = 64 * 1024 ** 2;

export interface UnpackBudget {
  /** Bytes still allowed to unpack, over every nesting level of one request. */
  remainingBytes: number;
}

export function checkMembers(
  members: Member[],
  packedBytes: number,
  limits: ArchiveLimits,
  budget: UnpackBudget,
): void {
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
  checkOverlaps(members);
  budget.remainingBytes -= unpacked;
}

function checkMember(member: Member): void {
  const name = JSON.stringify(member.path.slice(0, 200));
  if (escapes(member.path)) refuse(`the member ${name} would be written outside the archive's folder`);
  if (member.type === 'special') refuse(`the member ${name} is a device or pipe`);
  if (member.linkTarget !== undefined) {
    // A hard link names another member; a symbolic link is resolved from its own folder.
    const target =
      member.type === 'hardlink'
        ? member.linkTarget
        : posix.join(posix.dirname(member.path), member.linkTarget);
    if (member.linkTarget.startsWith('/') || escapes(target)) {
      refuse(`the member ${name} links outside the archive's folder`);
    }
  }
}

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
