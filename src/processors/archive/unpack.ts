/**
 * Unpacking, after safety.ts has passed the listing: a compressor's stream is decompressed to a file under
 * the request's remaining unpack budget (the tool's file-size limit stops a stream that decompresses to more
 * than its listing or trailer claimed), and containers are extracted by libarchive's bsdtar, whose defaults
 * refuse absolute paths, `..` and writing through symbolic links; 7-Zip opens encrypted 7z archives.
 */
import { open } from 'node:fs/promises';
import { runTool, type ToolRun } from '../shared/run-tool.ts';
import { type Compressor, decompressCommand } from './formats.ts';

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

export async function extract(
  archive: string,
  container: 'zip' | '7z' | 'tar',
  into: string,
  run: ToolRun,
  options: UnpackOptions,
): Promise<void> {
  const limits = { memoryBytes: options.memoryBytes, fileBytes: Math.max(1, options.maxBytes) };
  if (container === '7z' && options.password !== undefined) {
    // libarchive cannot decrypt 7z; 7-Zip's own extraction refuses absolute and `..` paths too.
    await runTool('7zz', ['x', '-y', '-snld', `-p${options.password}`, `-o${into}`, '--', archive], run, {
      label: '7-Zip',
      limits,
    });
    return;
  }
  const args = ['-x', '-f', archive, '-C', into, '--no-same-owner', '-p'];
  if (options.password !== undefined) args.push('--passphrase', options.password);
  await runTool('bsdtar', args, run, { label: 'bsdtar', limits });
}
