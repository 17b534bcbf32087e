/**
 * What the service hands the encoder's child process (encode-child.ts) in a JSON file of the job's work
 * directory: the source and pipeline options the service would build its pipeline from, the encoder
 * settings, where to write, and whether to score the output on the whole image (the child decodes its own
 * reference from the same pipeline: the service holds no copy of a 49 MP image for it).
 */

import type { ChildFormat } from './encoder-memory.ts';
import type { EncodeContext } from './encoders.ts';
import type { PipelineOptions } from './pipeline.ts';
import type { ImageSource } from './source.ts';

export interface ChildEncodeJob {
  /** What the pipeline reads of the source: not the input's own header nor the sanitised SVG's text. */
  source: Omit<ImageSource, 'inputMeta' | 'svg'>;
  /** The pipeline's options, the deadline as the milliseconds left of it. */
  pipeline: Omit<PipelineOptions, 'deadline'> & { remainingMs: number };
  format: ChildFormat;
  encode: EncodeContext;
  /** The output file the child writes. */
  output: string;
  /** Score the output on the whole image (flattened on white for JPEG with alpha); absent: no score. */
  score?: { flatten: boolean };
}

/**
 * An allocation that failed under the child's memory limit, as libvips, libheif, the encoders and V8 word
 * it (a 12 MP lossless AVIF under 900 MB: "heif: Memory allocation error: ... Failed to allocate image").
 */
export const OUT_OF_MEMORY = /bad_alloc|out of memory|memory allocation|cannot allocate|allocation failed/i;

/** The job as JSON; the source's header Buffers (EXIF, ICC, XMP) travel as base64. */
export function serialiseJob(job: ChildEncodeJob): string {
  return JSON.stringify(job, function (this: unknown, _key, value: unknown) {
    // Buffer#toJSON has already run: its { type, data } form is swapped for base64 (a third of the size).
    const json = value as { type?: unknown; data?: unknown };
    if (json !== null && typeof json === 'object' && json.type === 'Buffer' && Array.isArray(json.data)) {
      return { base64: Buffer.from(json.data as number[]).toString('base64') };
    }
    return value;
  });
}

export function parseJob(text: string): ChildEncodeJob {
  return JSON.parse(text, (_key, value: unknown) => {
    const json = value as { base64?: unknown };
    if (json !== null && typeof json === 'object' && typeof json.base64 === 'string') {
      return Buffer.from(json.base64, 'base64');
    }
    return value;
  }) as ChildEncodeJob;
}
