/**
 * Writing containers from an unpacked, checked folder (tree-check.ts): TAR by bsdtar (pax), members in the
 * order of the input's listing; ZIP and 7z by 7-Zip, which orders members by name (ZIP deflate at its
 * strongest setting, then advzip's zopfli at ultra), and the single-stream compressors. No access or creation
 * times are stored and thread counts are fixed, so the same members give the same bytes.
 *
 * No member name is ever read as an option or a directive: bsdtar gets its names NUL-separated (`--null -T`:
 * without it a line `-C` changes directory, and a name cannot hold a line break), 7-Zip gets no names at all
 * (`.`, after `--`, with wildcards off). Links are stored as links, never followed. A password goes to 7-Zip on
 * its stdin (`-p` without a value asks for it there).
 */
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool, type ToolRun } from '../shared/run-tool.ts';
import type { ArchiveLevel } from './formats.ts';
import { type Compressor, compressCommand } from './formats.ts';

export interface PackOptions {
  level: ArchiveLevel;
  password: string | undefined;
  memoryBytes: number;
}

/**
 * Packs `folder` into `output`. `names` (TAR only) are the members in the listing's order, byte for byte
 * (`latin1`), from the checked tree; 7-Zip takes the whole folder.
 */
export async function packFolder(
  folder: string,
  names: string[],
  container: 'zip' | '7z' | 'tar',
  output: string,
  run: ToolRun,
  options: PackOptions,
): Promise<void> {
  const tool = { ...run, workDir: folder };
  const limits = { memoryBytes: options.memoryBytes };
  if (container === 'tar') {
    // bsdtar takes every member in the listing's order (-n: no recursion, a folder's members are listed too).
    const list = join(run.workDir, 'pack-list-tar');
    await writeFile(list, Buffer.concat(names.map((name) => Buffer.from(`${name}\0`, 'latin1'))));
    await runTool('bsdtar', ['-c', '-f', output, '--format', 'pax', '-n', '--null', '-T', list], tool, {
      label: 'bsdtar',
      limits,
    });
    return;
  }
  const args =
    container === 'zip'
      ? ['-tzip', '-mx=9', '-mm=Deflate', '-mfb=258', '-mpass=15', '-mtc=off', '-mta=off', '-mmt=1']
      : ['-t7z', '-mx=9', '-m0=lzma2', '-ms=on', '-mtc=off', '-mta=off', '-mmt=2'];
  if (options.password !== undefined) args.push(container === 'zip' ? '-mem=AES256' : '-mhe=on', '-p');
  // 7-Zip walks the folder itself (`.`: every member, no prefix) and sorts by name anyway.
  await runTool('7zz', ['a', ...args, '-snl', '-spd', '-bd', '--', output, '.'], tool, {
    label: '7-Zip',
    limits,
    ...(options.password === undefined ? {} : { stdin: `${options.password}\n` }),
  });
  if (container === 'zip' && options.password === undefined) await recompressZip(output, run, options);
}

/**
 * Recompresses every member of a ZIP in place with advzip, which keeps names, times, attributes and order:
 * 7-Zip's deflate at high, zopfli at ultra (and at high for small archives). Encrypted ZIPs are left as
 * they are (advzip cannot read them).
 */
export async function recompressZip(zip: string, run: ToolRun, options: PackOptions): Promise<void> {
  const size = (await stat(zip)).size;
  const zopfli = options.level === 'ultra' || (options.level !== 'medium' && size <= 8 * 1024 ** 2);
  const args = zopfli
    ? ['-z', '-4', '-i', options.level === 'ultra' ? '15' : '5', '-q', zip]
    : ['-z', '-3', '-q', zip];
  await runTool('advzip', args, run, { label: 'advzip', limits: { memoryBytes: options.memoryBytes } });
}

export async function compressStream(
  input: string,
  compressor: Compressor,
  output: string,
  run: ToolRun,
  options: PackOptions,
): Promise<void> {
  const [command, args] = compressCommand(compressor, options.level, input, (await stat(input)).size);
  await runTool(command, args, run, { stdoutFile: output, limits: { memoryBytes: options.memoryBytes } });
}
