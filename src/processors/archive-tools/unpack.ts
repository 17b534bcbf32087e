/**
 * Unpacking, after safety.ts has passed the listing: a compressor's stream is decompressed to a file under
 * the request's remaining unpack budget (the tool's file-size limit stops a stream that decompresses to more
 * than its listing or trailer claimed), and containers are extracted by libarchive's bsdtar, whose defaults
 * refuse absolute paths, `..` and writing through symbolic links; 7-Zip opens encrypted 7z archives (and
 * leaves out the links it deems dangerous). Whatever the tool wrote is then checked against the listing
 * (tree-check.ts) before anything else reads it. A password goes on the tool's stdin: bsdtar, which has no
 * terminal (the runner starts each tool in its own session), reads its passphrase there; so does 7-Zip.
 */
import { open } from 'node:fs/promises';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { runTool, type ToolRun } from '../shared/run-tool.ts';
import { type Compressor, decompressCommand } from './formats.ts';
import { asPasswordError, type Member, passwordInput } from './listing.ts';
import { checkUnpackedTree, type UnpackedTree } from './tree-check.ts';

export interface UnpackOptions {
  memoryBytes: number;
  /** Largest file the tool may write: the request's remaining unpack budget. */
  maxBytes: number;
  password: string | undefined;
}

export async function decompressStream(
  input: string,
  compressor: Compressor,
  output: string,
  run: ToolRun,
  options: UnpackOptions,
): Promise<void> {
  const [command, args] = decompressCommand(compressor, input);
  await runTool(command, args, run, {
    stdoutFile: output,
    limits: { memoryBytes: options.memoryBytes, fileBytes: Math.max(1, options.maxBytes) },
  });
}

const TAR_MAGIC_OFFSET = 257;

/** A POSIX or GNU TAR has `ustar` at byte 257 of its first header. */
export async function isTar(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(5), 0, 5, TAR_MAGIC_OFFSET);
    return bytesRead === 5 && buffer.toString('latin1') === 'ustar';
  } finally {
    await handle.close();
  }
}

/** 7-Zip's words for a link it would not write (its target climbs with `..`, or is outside the folder). */
const DANGEROUS_LINK = /dangerous link path/i;

export async function extract(
  archive: string,
  container: 'zip' | '7z' | 'tar',
  into: string,
  members: Member[],
  run: ToolRun,
  options: UnpackOptions,
): Promise<UnpackedTree> {
  const limits = { memoryBytes: options.memoryBytes, fileBytes: Math.max(1, options.maxBytes) };
  const secret = passwordInput(options.password);
  const stdin = secret.stdin === undefined ? {} : { stdin: secret.stdin };
  try {
    if (container === '7z' && options.password !== undefined) {
      // libarchive cannot decrypt 7z. 7-Zip's extraction refuses absolute and `..` paths too, and without
      // -snld it writes no link whose target climbs (tree-check.ts then refuses the member it left out).
      await runTool('7zz', ['x', '-y', '-bd', '-t7z', `-o${into}`, '--', archive], run, {
        label: '7-Zip',
        limits,
        ...stdin,
      });
    } else {
      // --no-fflags and --no-xattrs: as root, bsdtar would otherwise restore file flags (an immutable file the
      // job's clean-up could not remove) and extended attributes that no output keeps.
      const args = [
        '-x',
        '-f',
        archive,
        '-C',
        into,
        '--no-same-owner',
        '-p',
        '--no-fflags',
        '--no-xattrs',
        '--no-acls',
      ];
      await runTool('bsdtar', args, run, { label: 'bsdtar', limits, ...stdin });
    }
  } catch (error) {
    if (error instanceof UnprocessableInputError && DANGEROUS_LINK.test(String(error.cause))) {
      throw new UnprocessableInputError(
        'The archive was refused after unpacking: the links of an encrypted 7z archive may not climb with ".." ' +
          '(7-Zip, the only unpacker that decrypts 7z, leaves them out).',
        error,
      );
    }
    throw asPasswordError(error, options.password);
  }
  return checkUnpackedTree(into, members);
}
