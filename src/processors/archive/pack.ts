/**
 * Writing containers from an unpacked folder: TAR by bsdtar (pax), members in the order of the input's
 * listing; ZIP and 7z by 7-Zip, which orders members by name (ZIP deflate at its strongest setting, then advzip's zopfli at ultra), and
 * the single-stream compressors. No access or creation times are stored and thread counts are fixed, so
 * the same members give the same bytes.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool, type ToolRun } from '../shared/run-tool.ts';
import type { ArchiveLevel } from './formats.ts';
import { type Compressor, compressCommand } from './formats.ts';

export interface PackOptions {
  level: ArchiveLevel;
  password: string | undefined;
  memoryBytes: number;
}

export async function packFolder(
  folder: string,
  names: string[],
  container: 'zip' | '7z' | 'tar',
  output: string,
  run: ToolRun,
  options: PackOptions,
): Promise<void> {
  const list = join(run.workDir, `pack-list-${container}.txt`);
  // bsdtar takes every member in the listing's order (-n: no recursion). 7-Zip recurses into every folder it
  // is given (a folder and its files listed both would be added twice) and sorts by name anyway: it gets the
  // top-level entries only.
  const entries = container === 'tar' ? names : (await readdir(folder)).sort();
  await writeFile(list, `${entries.join('\n')}\n`);
  const tool = { ...run, workDir: folder };
  const limits = { memoryBytes: options.memoryBytes };
  if (container === 'tar') {
    await runTool('bsdtar', ['-c', '-f', output, '--format', 'pax', '-n', '-T', list], tool, {
      label: 'bsdtar',
      limits,
    });
    return;
  }
  const crypt = options.password === undefined ? [] : [`-p${options.password}`];
  const args =
    container === 'zip'
      ? ['-tzip', '-mx=9', '-mm=Deflate', '-mfb=258', '-mpass=15', '-mtc=off', '-mta=off', '-mmt=1']
      : ['-t7z', '-mx=9', '-m0=lzma2', '-ms=on', '-mtc=off', '-mta=off', '-mmt=2'];
  if (options.password !== undefined) args.push(container === 'zip' ? '-mem=AES256' : '-mhe=on');
  await runTool('7zz', ['a', ...args, ...crypt, '-snl', '-bd', output, `@${list}`], tool, {
    label: '7-Zip',
    limits,
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
