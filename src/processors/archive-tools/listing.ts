/**
 * What an archive holds, read from its directory by 7-Zip (`7zz l -slt`: one `Key = Value` block per
 * member) without unpacking anything: names, sizes, types, link targets, encryption and, in a ZIP, where
 * each member's data starts (safety.ts looks for members that share bytes). 7-Zip is told the container
 * (`-t`), so it never reads the file as some other format than the one the request was detected as.
 *
 * A password goes to 7-Zip on its standard input, never on its command line (any process on the host reads
 * `/proc/<pid>/cmdline`): without `-p`, `l`, `t` and `x` read it from stdin when the archive needs one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError, ValidationError } from '../../errors/catalog.ts';
import { runTool, type ToolRun } from '../shared/run-tool.ts';

export type MemberType = 'file' | 'folder' | 'symlink' | 'hardlink' | 'special';

export interface Member {
  /** The name as the listing gives it, decoded as UTF-8 (for messages and metadata). */
  path: string;
  /** The same name byte for byte (one character per byte): what is on disk once unpacked. */
  bytes: string;
  type: MemberType;
  size: number;
  packedSize: number | undefined;
  /** Where the member's local header starts (ZIP only). */
  offset: number | undefined;
  /**
   * The target of a TAR link. A ZIP or 7z symbolic link keeps its target in its data, which no listing
   * shows: undefined, and checked once unpacked (tree-check.ts).
   */
  linkTarget: string | undefined;
  encrypted: boolean;
}

export type ListedContainer = 'zip' | '7z' | 'tar';

export interface ListOptions {
  password: string | undefined;
  memoryBytes: number;
}

/** 7-Zip's arguments and stdin for a password: an empty `-p` without one, so it never waits for one. */
export function passwordInput(password: string | undefined): { args: string[]; stdin?: string } {
  return password === undefined ? { args: ['-p'] } : { args: [], stdin: `${password}\n` };
}

export async function listMembers(
  archive: string,
  container: ListedContainer,
  run: ToolRun,
  options: ListOptions,
): Promise<Member[]> {
  const listing = join(run.workDir, 'listing.txt');
  const secret = passwordInput(options.password);
  try {
    await runTool('7zz', ['l', '-slt', '-sccUTF-8', `-t${container}`, ...secret.args, '--', archive], run, {
      label: '7-Zip',
      stdoutFile: listing,
      limits: { memoryBytes: options.memoryBytes, fileBytes: 512 * 1024 ** 2 },
      ...(secret.stdin === undefined ? {} : { stdin: secret.stdin }),
    });
  } catch (error) {
    throw asPasswordError(error, options.password);
  }
  return parseListing((await readFile(listing)).toString('latin1'));
}

/**
 * Decrypts every encrypted member without writing anything (`7zz t`): a wrong password is the client's
 * mistake on `archive.password`, told apart from a damaged archive by 7-Zip's own words. A ZIP's directory
 * is never encrypted, so its listing cannot tell; and ZipCrypto's one check byte passes one wrong password
 * in 256, which only the CRC of the decrypted data catches.
 */
export async function checkPassword(
  archive: string,
  container: ListedContainer,
  run: ToolRun,
  options: { password: string; memoryBytes: number },
): Promise<void> {
  await runTool('7zz', ['t', '-bd', `-t${container}`, '--', archive], run, {
    label: '7-Zip',
    stdin: `${options.password}\n`,
    limits: { memoryBytes: options.memoryBytes },
  }).catch((error: unknown) => {
    throw asPasswordError(error, options.password);
  });
}

/** 7-Zip's and bsdtar's words for a password that does not open the archive. */
const WRONG_PASSWORD = /wrong password|incorrect passphrase/i;

/** A tool failure caused by the password, as the 422 on `archive.password`; any other error as it is. */
export function asPasswordError(error: unknown, given: string | undefined): unknown {
  if (error instanceof UnprocessableInputError && WRONG_PASSWORD.test(String(error.cause))) {
    return passwordError(given);
  }
  return error;
}

export function passwordError(given: string | undefined): ValidationError {
  return ValidationError.field(
    'archive.password',
    given === undefined
      ? 'The archive is encrypted: give its password in archive.password.'
      : 'The password does not open the archive.',
  );
}

/**
 * The member blocks of a `7zz l -slt` listing, read byte for byte (`latin1`: one character per byte). The
 * members start after the last `----------` line: an archive's comment, printed above it, may hold that line
 * too, while every member value is one line (7-Zip prints a line break in a name or comment as `_`).
 */
export function parseListing(text: string): Member[] {
  const start = text.lastIndexOf('\n----------\n');
  if (start < 0) return [];
  const members: Member[] = [];
  for (const block of text.slice(start + 12).split('\n\n')) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const eq = line.indexOf(' = ');
      if (eq > 0) fields.set(line.slice(0, eq), line.slice(eq + 3));
      else if (line.endsWith(' =')) fields.set(line.slice(0, -2), '');
    }
    const bytes = fields.get('Path');
    if (bytes === undefined) continue;
    const type = memberType(fields);
    members.push({
      path: Buffer.from(bytes, 'latin1').toString('utf8'),
      bytes,
      type,
      size: Number(fields.get('Size') || 0),
      packedSize: fields.get('Packed Size') ? Number(fields.get('Packed Size')) : undefined,
      offset: fields.get('Offset') ? Number(fields.get('Offset')) : undefined,
      linkTarget: (type === 'hardlink' ? fields.get('Hard Link') : fields.get('Symbolic Link')) || undefined,
      encrypted: fields.get('Encrypted') === '+',
    });
  }
  return members;
}

/** A Unix mode as 7-Zip prints it: the type letter, then nine permission letters. */
const UNIX_MODE = /^.[-rwxsStT]{9}$/;
const MODE_TYPES: Record<string, MemberType> = { '-': 'file', d: 'folder', l: 'symlink' };

/**
 * A TAR says `Mode` and names its links; a ZIP or 7z says only `Attributes`: Windows letters (`D` a folder,
 * `L` a reparse point, which is how Windows stores a link), then the Unix mode when the archive has one
 * (` lrwxrwxrwx`, `A lrwxrwxrwx`, `D drwxr-xr-x`). A Unix type that is not a file, folder or link (device,
 * FIFO, socket, or a letter 7-Zip does not know) is `special`, refused.
 */
export function memberType(fields: Map<string, string>): MemberType {
  if (fields.get('Hard Link')) return 'hardlink';
  if (fields.get('Symbolic Link')) return 'symlink';
  const words = `${fields.get('Mode') ?? ''} ${fields.get('Attributes') ?? ''}`.split(' ').filter(Boolean);
  const mode = words.find((word) => UNIX_MODE.test(word));
  const unixType = mode === undefined ? undefined : (MODE_TYPES[mode[0]!] ?? 'special');
  if (unixType !== undefined && unixType !== 'file') return unixType;
  const windows = words.filter((word) => word !== mode && /^[A-Za-z]+$/.test(word)).join('');
  if (fields.get('Folder') === '+' || windows.includes('D')) return 'folder';
  if (windows.includes('L')) return 'symlink';
  return 'file';
}
