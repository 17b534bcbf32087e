/** `"metadata": true` for archives: counts, sizes and a listing capped in length. */
import { formatInfo } from '../../media/formats.ts';
import type { Member } from '../archive-tools/listing.ts';

/** Longest listing returned; `listingTruncated` says when members were left out. */
export const LISTING_CAP = 1000;

const ALIASES: Record<string, string> = { jpg: 'jpeg', tif: 'tiff', htm: 'html', tgz: 'tar.gz', oga: 'ogg' };

export function describeMembers(members: Member[], packedBytes: number): Record<string, unknown> {
  const files = members.filter((m) => m.type === 'file');
  return {
    members: members.length,
    files: files.length,
    folders: members.filter((m) => m.type === 'folder').length,
    links: members.filter((m) => m.type === 'symlink' || m.type === 'hardlink').length,
    unpackedBytes: files.reduce((sum, m) => sum + m.size, 0),
    packedBytes,
    encrypted: members.some((m) => m.encrypted),
    listing: members.slice(0, LISTING_CAP).map((m) => ({ name: m.path, size: m.size, kind: kindOf(m) })),
    listingTruncated: members.length > LISTING_CAP,
  };
}

/** The kind a member's name suggests (the listing is read before anything is unpacked, so never its content). */
function kindOf(member: Member): string {
  if (member.type !== 'file') return member.type;
  const ext = /\.([a-z0-9]+)$/i.exec(member.path)?.[1]?.toLowerCase() ?? '';
  const html = ext === 'html' || ext === 'css' || ext === 'js' ? 'web' : undefined;
  return html ?? formatInfo(ALIASES[ext] ?? ext)?.kind ?? 'other';
}
