/**
 * The never-larger rule (job-steps.ts) hands the input back when the encode is not smaller. A JPEG with
 * a ZIP or an HTML page appended after its end-of-image marker (a polyglot file) would then travel on
 * byte for byte, trailer included. For such an input the fallback is the input cut at its EOI instead:
 * the same compressed pixels, smaller than the input, so the runner keeps it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripJpegMetadata, trimJpegTrailer } from './jpeg-segments.ts';
import type { Candidate } from './output-context.ts';
import type { MetadataMode } from './params.ts';

/**
 * `output` unless the runner would replace it by an input that carries trailing data; then the input
 * without the trailer (and without metadata when the request strips it), written to the work dir.
 */
export async function cutJpegTrailer(
  input: { path: string; size: number },
  output: Candidate,
  metadata: MetadataMode,
  workDir: string,
): Promise<Candidate> {
  if (output.size < input.size) return output;
  const bytes = await readFile(input.path);
  const trimmed = trimJpegTrailer(bytes);
  if (trimmed === undefined || trimmed.length === bytes.length) return output;
  const kept = metadata === 'strip' ? (stripJpegMetadata(bytes) ?? trimmed) : trimmed;
  const path = join(workDir, 'input-without-trailer.jpeg');
  await writeFile(path, kept);
  return { path, format: 'jpeg', size: kept.length };
}
