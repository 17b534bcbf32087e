/**
 * HEVC-coded HEIC/HEIF (iPhone photos): sharp's prebuilt libvips decodes only AV1-coded HEIF, so the
 * primary image is decoded by libheif's `heif-convert` (libde265) to a PNG in the job's work directory.
 * libheif applies the file's rotation and mirror transforms while decoding.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../../errors/catalog.ts';
import { runTool, type ToolRun } from '../../shared/run-tool.ts';

export async function decodeHeic(input: string, workDir: string, run: ToolRun): Promise<string> {
  const output = join(workDir, 'heic-decoded.png');
  await runTool('heif-convert', ['--quiet', input, output], run);
  // Files with several top-level images are written as heic-decoded-1.png, -2.png, …; the first is primary.
  const names = (await readdir(workDir)).filter((n) => /^heic-decoded(-\d+)?\.png$/.test(n)).sort();
  const first = names.includes('heic-decoded.png') ? 'heic-decoded.png' : names[0];
  if (first === undefined) throw new UnprocessableInputError('The HEIC image holds no decodable picture.');
  return join(workDir, first);
}
