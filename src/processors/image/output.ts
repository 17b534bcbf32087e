/**
 * Producing the output file: the requested format, or for `auto` the smallest format that keeps what
 * the input has. Raster formats are encoded by sharp through the encoder module; JXL, ICO and SVG are
 * written here (cjxl, our ICO writer, the sanitised SVG); GIF output also gets gifsicle's optimiser.
 */
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { formatInfo } from '../../media/formats.ts';
import type { ProcessRequest } from '../processor.ts';
import type { Deadline } from '../shared/deadline.ts';
import type { ToolRun } from '../shared/run-tool.ts';
import { type BudgetRace, withinBudget } from '../shared/within-budget.ts';
import { optimiseGif } from './codecs/gifsicle.ts';
import { iconSizesFor, writeIcon } from './codecs/ico.ts';
import { encodeJxl, recompressJpegToJxl } from './codecs/jxl.ts';
import { applyTunedEncoder, canAnimate, canHoldAlpha } from './encoders.ts';
import { stripJpegMetadata, trimJpegTrailer } from './jpeg-segments.ts';
import { encodeTunedJxl, JXL_DISTANCE } from './jxl-tuning.ts';
import type { ImageLimits } from './limits.ts';
import type { OutputFormat, RasterFormat, ResolvedImageParams } from './params.ts';
import { buildPipeline } from './pipeline.ts';
import { toInputError } from './pipeline-errors.ts';
import type { ImageSource } from './source.ts';

export interface OutputContext {
  request: ProcessRequest;
  params: ResolvedImageParams;
  source: ImageSource;
  limits: ImageLimits;
  deadline: Deadline;
  /** Encodes given up at the deadline or on abort that are still running (they hold memory until done). */
  abandoned: Promise<unknown>[];
}

export interface Candidate {
  path: string;
  format: OutputFormat;
  size: number;
}

const SHARP_FORMATS: readonly string[] = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff'];
const isRaster = (format: OutputFormat): format is RasterFormat => SHARP_FORMATS.includes(format);

export function formatCanAnimate(format: OutputFormat): boolean {
  return isRaster(format) ? canAnimate(format) : false;
}

export function formatCanHoldAlpha(format: OutputFormat): boolean {
  return isRaster(format) ? canHoldAlpha(format) : true;
}

export function hasGeometry(params: ResolvedImageParams): boolean {
  return (
    params.crop !== undefined ||
    params.rotate !== 0 ||
    params.flip ||
    params.flop ||
    params.resize !== undefined
  );
}

/** Pixels of a straight re-encode would differ from the decoded input's (orientation, colour). */
function pixelsNeedChange(source: ImageSource): boolean {
  const { meta } = source;
  return (meta.orientation ?? 1) > 1 || meta.icc !== undefined || meta.space === 'cmyk';
}

export async function produceOutput(ctx: OutputContext, target: OutputFormat | 'auto'): Promise<Candidate> {
  if (target === 'auto') return encodeSmallest(ctx);
  return encode(ctx, target);
}

async function encode(ctx: OutputContext, format: OutputFormat, baseName = 'output'): Promise<Candidate> {
  const path = join(ctx.request.workDir, `${baseName}.${extensionOf(format)}`);
  if (format === 'svg') {
    await writeFile(path, ctx.source.svg ?? '');
    return { path, format, size: (await stat(path)).size };
  }
  const { params, request } = ctx;
  const untouched = request.input.format === 'jpeg' && !hasGeometry(params) && !pixelsNeedChange(ctx.source);
  if (untouched && params.compression === 'lossless' && (format === 'jpeg' || format === 'jxl')) {
    const done = await losslessJpeg(ctx, format, path);
    if (done !== undefined) return done;
  }
  if (format === 'jxl') return encodeJxlOutput(ctx, path);
  if (format === 'ico') return encodeIconOutput(ctx, path);
  return encodeRaster(ctx, format, path);
}

function pipelineFor(ctx: OutputContext, format: OutputFormat) {
  return buildPipeline(ctx.source, {
    limits: ctx.limits,
    deadline: ctx.deadline,
    // Formats without animation get the first frame only.
    animated: formatCanAnimate(format),
    geometry: ctx.params,
    level: ctx.params.compression,
    metadata: ctx.params.metadata,
    alphaOutput: formatCanHoldAlpha(format),
    deepOutput: format === 'png' || format === 'tiff' || format === 'jxl',
  });
}

async function encodeRaster(ctx: OutputContext, format: RasterFormat, path: string): Promise<Candidate> {
  // Lossy levels search the encoder quality that meets the level's perceptual target (encoders.ts).
  // The search is within the time budget too: under CPU load its encodes used to run on for many
  // seconds past the deadline (a 1 s budget on a 12 MP AVIF answered after 19.5 s).
  const search = applyTunedEncoder(pipelineFor(ctx, format), format, {
    level: ctx.params.compression,
    hasAlpha: ctx.source.meta.hasAlpha,
    animated: ctx.source.animated && canAnimate(format),
    signal: AbortSignal.any([ctx.request.signal, ctx.deadline.signal]),
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

/**
 * sharp's `timeout()` stops libvips between evaluation steps, but some encoders (AVIF, WebP) compress in
 * one call after the pixels are ready and cannot be interrupted; the job then answers at the deadline (or
 * on abort), and the encode, listed in `ctx.abandoned`, keeps its share of the pixel budget until it ends
 * (image-processor.ts), so abandoned work cannot pile up in memory.
 */
function budgetRace(ctx: OutputContext): BudgetRace {
  return {
    deadline: ctx.deadline,
    signal: ctx.request.signal,
    onAbandon: (abandoned) => ctx.abandoned.push(abandoned),
    toError: (error) => toInputError(error, ctx.deadline),
  };
}

function toolRun(ctx: OutputContext): ToolRun {
  return { deadline: ctx.deadline, signal: ctx.request.signal, workDir: ctx.request.workDir };
}

async function encodeJxlOutput(ctx: OutputContext, path: string): Promise<Candidate> {
  const png = join(ctx.request.workDir, 'jxl-input.png');
  await withinBudget(pipelineFor(ctx, 'jxl').png({ compressionLevel: 1 }).toFile(png), budgetRace(ctx));
  const level = ctx.params.compression;
  const run = toolRun(ctx);
  if (level === 'lossless') {
    await encodeJxl(png, path, 0, run);
  } else {
    const job = { png, output: path, workDir: ctx.request.workDir, run };
    await encodeTunedJxl(pipelineFor(ctx, 'jxl'), level, job).catch(async (error: unknown) => {
      // Aborts and the deadline end the job; any other search failure falls back to the tuned distance.
      if (ctx.request.signal.aborted || ctx.deadline.isExceeded()) throw error;
      await encodeJxl(png, path, JXL_DISTANCE[level], run);
    });
  }
  await rm(png, { force: true });
  return { path, format: 'jxl', size: (await stat(path)).size };
}

/**
 * Lossless JPEG: drop the metadata segments and keep the compressed pixels byte for byte (JPEG), or
 * recompress those same coefficients to JXL. Only when no pixel change is needed.
 */
async function losslessJpeg(
  ctx: OutputContext,
  format: 'jpeg' | 'jxl',
  path: string,
): Promise<Candidate | undefined> {
  if (ctx.params.metadata === 'copyright') return undefined;
  const bytes = await readFile(ctx.request.input.path);
  // Bytes after the end-of-image marker (a phone's depth map, an appended ZIP) are never copied on.
  const kept = ctx.params.metadata === 'strip' ? stripJpegMetadata(bytes) : trimJpegTrailer(bytes);
  if (kept === undefined) return undefined;
  const jpeg = format === 'jpeg' ? path : join(ctx.request.workDir, 'lossless-input.jpeg');
  await writeFile(jpeg, kept);
  if (format === 'jxl') {
    await recompressJpegToJxl(jpeg, path, toolRun(ctx));
    await rm(jpeg, { force: true });
  }
  ctx.request.signal.throwIfAborted();
  return { path, format, size: (await stat(path)).size };
}

/** An icon of square PNG entries at the standard sizes up to the image's size (at most 256). */
async function encodeIconOutput(ctx: OutputContext, path: string): Promise<Candidate> {
  // No downscale here: sharp keeps one resize per pipeline and the request's own comes first.
  const { data, info } = await withinBudget(
    pipelineFor(ctx, 'ico').ensureAlpha().raw().toBuffer({ resolveWithObject: true }),
    budgetRace(ctx),
  );
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
  const entries = [];
  for (const size of iconSizesFor(info.width, info.height)) {
    const png = await sharp(data, raw)
      .resize(size, size, { fit: 'contain', background: '#00000000' })
      .png({ compressionLevel: 9, adaptiveFiltering: true })
      .toBuffer();
    entries.push({ size, png });
  }
  const icon = writeIcon(entries);
  await writeFile(path, icon);
  return { path, format: 'ico', size: icon.length };
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
  // One at a time: each encoder already uses every core.
  for (const format of suitable) {
    request.signal.throwIfAborted();
    candidates.push(await encode(ctx, format, `candidate-${format}`));
  }
  const best = candidates.reduce((a, b) => (b.size < a.size ? b : a));
  // Losers would only fill the work directory until the job ends.
  await Promise.all(candidates.filter((c) => c !== best).map((c) => rm(c.path)));
  const path = join(request.workDir, `output.${extensionOf(best.format)}`);
  await rename(best.path, path);
  return { ...best, path };
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

export function extensionOf(format: string): string {
  return formatInfo(format)?.extension ?? format;
}
