/**
 * What an archive holds, read from its directory by 7-Zip (`7zz l -slt`: one `Key = Value` block per
 * member) without unpacking anything: names, sizes, types, link targets, encryption and, in a ZIP, where
 * each member's data starts (safety.ts looks for members that share bytes).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError, ValidationError } from '../../errors/catalog.ts';
import { runTool, type ToolRun } from '../shared/run-tool.ts';

export type MemberType = 'file' | 'folder' | 'symlink' | 'hardlink' | 'special';

export interface Member {
  path: string;
  type: MemberType;
  size: number;
  packedSize: number | undefined;
  /** Where the member's local header starts (ZIP only). */
  offset: number | undefined;
  linkTarget: string | undefined;
  encrypted: boolean;
}

export async function listMembers(
  archive: string,
  run: ToolRun,
  options: { password: string | undefined; memoryBytes: number },
): Promise<Member[]> {
  const listing = join(run.workDir, 'listing.txt');
  try {
    // -p with the password, or an empty one: 7-Zip must never wait for a password on its stdin.
    await runTool('7zz', ['l', '-slt', '-sccUTF-8', `-p${options.password ?? ''}`, '--', archive], run, {
      label: '7-Zip',
      stdoutFile: listing,
      limits: { memoryBytes: options.memoryBytes, fileBytes: 512 * 1024 ** 2 },
    });
  } catch (error) {
    if (error instanceof UnprocessableInputError && /password/i.test(String(error.cause))) {
      throw passwordError(options.password);
    }
    throw error;
  }
  return parseListing(await readFile(listing, 'utf8'));
}

export function passwordError(given: string | undefined): ValidationError {
  return ValidationError.field(
    'archive.password',
    given === undefined
      ? 'The archive is encrypted: give its password in archive.password.'
      : 'The password does not open the archive.',
  );
}

/** The member blocks of a `7zz l -slt` listing (after the `----------` line that ends the archive's own). */
export function parseListing(text: string): Member[] {
  const start = text.indexOf('\n----------\n');
  if (start < 0) return [];
  const members: Member[] = [];
  for (const block of text.slice(start + 12).split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const eq = line.indexOf(' = ');
      if (eq > 0) fields.set(line.slice(0, eq), line.slice(eq + 3));
      else if (line.endsWith(' =')) fields.set(line.slice(0, -2), '');
    }
    const path = fields.get('Path');
    if (path === undefined) continue;
    members.push({
      path,
      type: memberType(fields),
      size: Number(fields.get('Size') || 0),
      packedSize: fields.get('Packed Size') ? Number(fields.get('Packed Size')) : undefined,
      offset: fields.get('Offset') ? Number(fields.get('Offset')) : undefined,
      linkTarget: fields.get('Symbolic Link') || fields.get('Hard Link') || undefined,
      encrypted: fields.get('Encrypted') === '+',
    });
  }
  return members;
}

/** ZIP and 7z say `Attributes` (`D drwxr-xr-x`, ` lrwxrwxrwx`), TAR says `Mode` and names links. */
function memberType(fields: Map<string, string>): MemberType {
  if (fields.get('Hard Link')) return 'hardlink';
  if (fields.get('Symbolic Link')) return 'symlink';
  if (fields.get('Folder') === '+') return 'folder';
  const mode = (fields.get('Mode') || fields.get('Attributes')?.replace(/^[A-Z]*\s*/, '') || '-').trim();
  if (fields.get('Attributes')?.startsWith('D')) return 'folder';
  switch (mode[0]) {
    case 'd':
      return 'folder';
    case 'l':
      return 'symlink';
    case 'c':
    case 'b':
    case 'p':
    case 's':
      return 'special';
    default:
      return 'file';
  }
}
