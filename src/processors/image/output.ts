/**
 * Producing the output file: the requested format, or for `auto` the smallest format that keeps what
 * the input has. Raster formats are encoded by sharp through the encoder module (GIF output also gets
 * gifsicle's optimiser); JXL, lossless JPEG, ICO and SVG are written by encode-special.ts.
 */
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { withinBudget } from '../shared/within-budget.ts';
import { optimiseGif } from './codecs/gifsicle.ts';
import { childEncoder } from './encode-process.ts';
import { encodeIconOutput, encodeJxlOutput, losslessJpeg, writeSvgOutput } from './encode-special.ts';
import { canAnimate, canHoldAlpha, type LossyFormat } from './encoders.ts';
import { type LossyReference, lossyReference, probeLossy, probePalette } from './lossy-tuning.ts';
import {
  budgetRace,
  type Candidate,
  extensionOf,
  formatCanHoldAlpha,
  hasGeometry,
  isRaster,
  type OutputContext,
  pipelineFor,
  SHARP_FORMATS,
  toolRun,
} from './output-context.ts';
import type { OutputFormat, RasterFormat } from './params.ts';
import type { ImageSource } from './source.ts';
import { applyTunedEncoder } from './tuned-encoder.ts';

/** Pixels of a straight re-encode would differ from the decoded input's (orientation, colour). */
function pixelsNeedChange(source: ImageSource): boolean {
  const { meta } = source;
  return (meta.orientation ?? 1) > 1 || meta.icc !== undefined || meta.space === 'cmyk';
}

export async function produceOutput(ctx: OutputContext, target: OutputFormat | 'auto'): Promise<Candidate> {
  if (target === 'auto') return encodeSmallest(ctx);
  return encode(ctx, target);
}

async function encode(
  ctx: OutputContext,
  format: OutputFormat,
  baseName = 'output',
  reference?: LossyReference,
): Promise<Candidate> {
  const path = join(ctx.request.workDir, `${baseName}.${extensionOf(format)}`);
  if (format === 'svg') return writeSvgOutput(ctx, path);
  const { params, request } = ctx;
  const untouched = request.input.format === 'jpeg' && !hasGeometry(params) && !pixelsNeedChange(ctx.source);
  if (untouched && params.compression === 'lossless' && (format === 'jpeg' || format === 'jxl')) {
    const done = await losslessJpeg(ctx, format, path);
    if (done !== undefined) return done;
  }
  if (format === 'jxl') return encodeJxlOutput(ctx, path);
  if (format === 'ico') return encodeIconOutput(ctx, path);
  return encodeRaster(ctx, format, path, reference);
}

async function encodeRaster(
  ctx: OutputContext,
  format: RasterFormat,
  path: string,
  reference?: LossyReference,
): Promise<Candidate> {
  // Lossy levels search the encoder quality that meets the level's perceptual target (tuned-encoder.ts).
  // The search is within the time budget too: under CPU load its encodes used to run on for many
  // seconds past the deadline (a 1 s budget on a 12 MP AVIF answered after 19.5 s).
  const search = applyTunedEncoder(pipelineFor(ctx, format), format, {
    level: ctx.params.compression,
    hasAlpha: ctx.source.meta.hasAlpha,
    animated: ctx.source.animated && canAnimate(format),
    signal: AbortSignal.any([ctx.request.signal, ctx.deadline.signal]),
    reference,
    // A whole-image encode that would take the service past its memory target runs in a child.
    child: childEncoder(ctx, format),
  });
  const encoder = await withinBudget(search, budgetRace(ctx));
  const info = await withinBudget(encoder.toFile(path), budgetRace(ctx));
  ctx.request.signal.throwIfAborted();
  const written: Candidate = { path, format, size: info.size };
  return format === 'gif' ? smallerGif(ctx, written) : written;
}

/** gifsicle's optimiser on libvips' GIF; the smaller file wins. */
async function smallerGif(ctx: OutputContext, written: Candidate): Promise<Candidate> {
  const optimised = `${written.path}.gifsicle.gif`;
  await optimiseGif(written.path, optimised, ctx.params.compression, toolRun(ctx));
  const size = (await stat(optimised)).size;
  if (size >= written.size) {
    await rm(optimised);
    return written;
  }
  await rename(optimised, written.path);
  return { ...written, size };
}

/** `auto`: encode every format that keeps what the input has (alpha, animation) and keep the smallest. */
async function encodeSmallest(ctx: OutputContext): Promise<Candidate> {
  const { source, request } = ctx;
  const own = defaultOutputFormat(request.input.format);
  const formats = new Set<RasterFormat>(['webp', 'avif']);
  if (isRaster(own)) formats.add(own);
  const suitable = [...formats].filter(
    (f) => (!source.animated || canAnimate(f)) && (!source.meta.hasAlpha || canHoldAlpha(f)),
  );
  const candidates: Candidate[] = [];
  // Vector input without geometry: the sanitised SVG competes with its rasterisations.
  if (own === 'svg' && !hasGeometry(ctx.params)) candidates.push(await encode(ctx, 'svg', 'candidate-svg'));
  const { kept, references } = await pruneLossy(ctx, suitable);
  // One at a time: each encoder already uses every core.
  for (const format of kept) {
    request.signal.throwIfAborted();
    const reference = references.get(formatCanHoldAlpha(format));
    candidates.push(await encode(ctx, format, `candidate-${format}`, reference));
  }
  const best = candidates.reduce((a, b) => (b.size < a.size ? b : a));
  // Losers would only fill the work directory until the job ends.
  await Promise.all(candidates.filter((c) => c !== best).map((c) => rm(c.path)));
  const path = join(request.workDir, `output.${extensionOf(best.format)}`);
  await rename(best.path, path);
  return { ...best, path };
}

/**
 * A lossy candidate whose probe estimates it larger than the best one is not searched. No slack: the
 * estimates ranked the formats right on the profiled photos but understate the gaps (canon 1280×960:
 * WebP estimated 3 % above AVIF, 23 % above once both were searched), so any slack kept a loser.
 */
const PRUNE_SLACK = 1;
const LOSSY = ['jpeg', 'webp', 'avif'] as const;
/** The smallest share of its proxy palette's bytes a PNG output can come to (a margin below oxipng's 85 %). */
const PALETTE_FLOOR = 0.5;
const isLossy = (format: RasterFormat): format is LossyFormat =>
  (LOSSY as readonly string[]).includes(format);

/**
 * `auto` searched every candidate to the end and kept one (a 640×480 photo: 18.8 CPU-s against 9.4 for
 * AVIF alone). Each lossy candidate now gets one proxy trial at its corpus-tuned quality; its bytes,
 * moved to the level's aim along the corpus slope of bytes against score, rank the candidates, and only
 * those within PRUNE_SLACK of the best are searched. The decoded reference is shared: one decode per
 * alpha handling (JPEG flattens, WebP and AVIF keep alpha) instead of one per candidate.
 */
async function pruneLossy(
  ctx: OutputContext,
  formats: RasterFormat[],
): Promise<{ kept: RasterFormat[]; references: Map<boolean, LossyReference> }> {
  const level = ctx.params.compression;
  const references = new Map<boolean, LossyReference>();
  if (level === 'lossless' || ctx.source.animated) return { kept: formats, references };
  const estimates = new Map<RasterFormat, number>();
  for (const format of formats.filter(isLossy)) {
    ctx.request.signal.throwIfAborted();
    const alpha = formatCanHoldAlpha(format);
    let reference = references.get(alpha);
    if (reference === undefined) {
      const flatten = format === 'jpeg' && ctx.source.meta.hasAlpha;
      reference = await lossyReference(pipelineFor(ctx, format), flatten === true);
      references.set(alpha, reference);
    }
    estimates.set(format, (await probeLossy(reference, format, level)).bytesAtAim);
  }
  const best = Math.min(...estimates.values());
  const png = references.get(true);
  if (formats.includes('png') && png !== undefined) {
    // The PNG output is the palette after oxipng (5–15 % smaller) or a larger file: a palette twice the
    // best lossy estimate cannot win. Proxy palette (libimagequant effort 10) / best estimate at high:
    // astronaut 4.5, coffee 3.4, Debian logo (alpha) 2.8, green_palette 4.0, chelsea 5.1; AVIF won each
    // searched in full. The probe's effort-1 palette is 0–11 % larger than that (probePalette).
    const palette = await probePalette(png, level);
    estimates.set('png', palette * PALETTE_FLOOR > best ? Number.POSITIVE_INFINITY : 0);
  }
  const kept = formats.filter((f) => (estimates.get(f) ?? 0) <= best * PRUNE_SLACK);
  return { kept, references };
}

/** Same format as the input where we can write it; BMP becomes PNG, HEIC becomes AVIF (same codec family). */
export function defaultOutputFormat(inputFormat: string): OutputFormat {
  if (inputFormat === 'svg' || inputFormat === 'ico') return inputFormat;
  if (inputFormat === 'heic') return 'avif';
  if (inputFormat === 'bmp') return 'png';
  const raster = SHARP_FORMATS.find((f) => f === inputFormat);
  if (raster === undefined)
    throw new Error(`image processor got an input it does not declare: ${inputFormat}`);
  return raster as RasterFormat;
}
