/**
 * The encoder for one output, tuned to this image: a per-image search for lossy JPEG/WebP/AVIF
 * (lossy-tuning.ts) and PNG's candidates (png-tuning.ts); animations, lossless levels and explicit
 * qualities take the plain settings of encoders.ts.
 */
import type { Sharp } from 'sharp';
import { type ChildEncoder, isChildFailure } from './encode-process.ts';
import type { EncodedOutput } from './encoded-output.ts';
import { applyEncoder, type EncodeContext } from './encoders.ts';
import { type LossyReference, type TuningReport, tunedLossy } from './lossy-tuning.ts';
import type { RasterFormat } from './params.ts';
import { losslessPng, tunedPng } from './png-tuning.ts';

export type { TuningReport } from './lossy-tuning.ts';

export interface TunedEncodeContext extends EncodeContext {
  /** The pipeline decodes several frames (no search on animations). */
  animated?: boolean;
  /**
   * Aborted when the job is cancelled or its time budget runs out: the search stops at its next trial
   * instead of running its 6-12 encodes to the end (it was not bounded by the deadline at all before).
   */
  signal?: AbortSignal;
  /** The decoded reference shared by the candidates of `format: auto` (decoded once for all of them). */
  reference?: LossyReference;
  /** Encodes the whole image out of process when it is too large for this one (encode-process.ts). */
  child?: ChildEncoder;
}

/**
 * Like `applyEncoder`, but for lossy JPEG/WebP/AVIF it first searches the lowest quality that meets the
 * level's target on a proxy of this image; PNG takes the smallest of its candidates that meets the target
 * (png-tuning.ts). When the search cannot run (any decode error), the level's tuned
 * defaults are used and the error surfaces when the output is written.
 */
export async function applyTunedEncoder(
  pipeline: Sharp,
  format: RasterFormat,
  context: TunedEncodeContext,
  report: TuningReport = { trials: 0 },
): Promise<EncodedOutput> {
  const { level } = context;
  if (format === 'png' && !context.animated && context.quality === undefined) {
    try {
      return level === 'lossless'
        ? await losslessPng(pipeline.clone())
        : await tunedPng(pipeline, level, report, context.signal);
    } catch {
      // A stopped job stops here; anything else falls through to the plain encoder, which reports
      // decode problems where the caller expects them.
      context.signal?.throwIfAborted();
    }
  }
  if (level === 'lossless' || context.animated || context.quality !== undefined) {
    return plainEncoder(pipeline, format, context);
  }
  try {
    if (format === 'jpeg' || format === 'webp' || format === 'avif') {
      return await tunedLossy(pipeline, format, { ...context, level }, report);
    }
  } catch (error) {
    // As above: a stopped job stops, a decode problem surfaces from the plain encoder. The child's
    // failure (its memory limit) is final: the plain settings would fail there the same way.
    context.signal?.throwIfAborted();
    if (isChildFailure(error)) throw error;
  }
  return plainEncoder(pipeline, format, context);
}

/** The format's plain settings, encoded in the child process when the image is too large for this one. */
async function plainEncoder(
  pipeline: Sharp,
  format: RasterFormat,
  context: TunedEncodeContext,
): Promise<EncodedOutput> {
  const { level, hasAlpha, quality, fullChroma, nearLossless } = context;
  const settings: EncodeContext = { level, hasAlpha, quality, fullChroma, nearLossless };
  if (context.child?.wants(settings)) return (await context.child.encode(settings)).output;
  return applyEncoder(pipeline, format, context);
}
