/**
 * The image processor (sharp/libvips): recompression, format conversion (including `auto`, the smallest
 * modern format), resizing, orientation, metadata stripping and metadata extraction.
 */
import { copyFile, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ValidationError } from '../../errors/catalog.ts';
import { formatInfo } from '../../media/formats.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { applyEncoder, canAnimate, canHoldAlpha } from './encoders.ts';
import { stripJpegMetadata } from './jpeg-segments.ts';
import { describeImage } from './metadata.ts';
import {
  checkImageParams,
  imageParamsSchema,
  RASTER_OUTPUT_FORMATS,
  type RasterFormat,
  type ResolvedImageParams,
  resolveImageParams,
} from './params.ts';
import {
  buildPipeline,
  type InputLimits,
  type InspectedInput,
  inspectInput,
  toInputError,
} from './pipeline.ts';

// libvips defaults to one worker thread on glibc without jemalloc, which halves AVIF/WebP speed on two
// cores. The cache only helps when the same file is processed repeatedly; here it only holds memory.
sharp.concurrency(os.availableParallelism());
sharp.cache(false);

export interface ImageProcessorOptions {
  /** Inputs with more pixels are refused (default 50 MP). */
  maxPixels?: number;
}

const DEFAULT_MAX_PIXELS = 50_000_000;

/** Formats sharp (prebuilt libvips) reads; BMP, ICO and HEVC HEIC are not among them. */
const INPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff', 'svg', 'heic'] as const;

interface Candidate {
  path: string;
  format: string;
  size: number;
}

export function createImageProcessor(options: ImageProcessorOptions = {}): Processor {
  const limits: InputLimits = { maxPixels: options.maxPixels ?? DEFAULT_MAX_PIXELS };
  return {
    name: 'image',
    kind: 'image',
    inputFormats: INPUT_FORMATS,
    // SVG comes out only as the unchanged input (an SVG optimiser is a later step).
    outputFormats: [...RASTER_OUTPUT_FORMATS, 'svg'],
    paramsSchema: imageParamsSchema,
    checkParams: checkImageParams,
    process: (request) => processImage(request, limits),
  };
}

async function processImage(request: ProcessRequest, limits: InputLimits): Promise<ProcessResult> {
  const problems = checkImageParams(request.params, 'image');
  if (problems.length > 0) throw new ValidationError(problems);
  const params = resolveImageParams(request.params);
  throwIfAborted(request.signal);

  const inspected = await inspectInput(request.input.path, limits);
  const inputFormat = request.input.format;
  const metadata = request.wantMetadata ? describeImage(inspected.meta, inputFormat) : undefined;
  throwIfAborted(request.signal);

  const output = await produceOutput(request, params, inspected, limits);
  const resized = params.resize !== undefined;
  return {
    path: output.path,
    format: output.format,
    transformed: resized || output.format !== inputFormat,
    ...(metadata === undefined ? {} : { metadata }),
  };
}

async function produceOutput(
  request: ProcessRequest,
  params: ResolvedImageParams,
  inspected: InspectedInput,
  limits: InputLimits,
): Promise<Candidate> {
  const inputFormat = request.input.format;
  if (params.format === 'auto') return encodeSmallest(request, params, inspected, limits);
  const target = params.format ?? defaultOutputFormat(inputFormat);
  if (target === 'svg') return keepInput(request);
  if (target === 'jpeg' && inputFormat === 'jpeg' && params.compression === 'lossless' && !params.resize) {
    const stripped = await stripJpegLosslessly(request, inspected);
    if (stripped !== undefined) return stripped;
  }
  return encode(request, params, inspected, limits, target);
}

/** Same format as the input; HEIC (AV1-coded, the only kind we decode) is the same codec as AVIF. */
function defaultOutputFormat(inputFormat: string): RasterFormat | 'svg' {
  if (inputFormat === 'svg') return 'svg';
  if (inputFormat === 'heic') return 'avif';
  const raster = RASTER_OUTPUT_FORMATS.find((f) => f === inputFormat);
  if (raster === undefined)
    throw new Error(`image processor got an input it does not declare: ${inputFormat}`);
  return raster;
}

/** `auto`: encode every format that keeps what the input has (alpha, animation) and keep the smallest. */
async function encodeSmallest(
  request: ProcessRequest,
  params: ResolvedImageParams,
  inspected: InspectedInput,
  limits: InputLimits,
): Promise<Candidate> {
  const inputFormat = request.input.format;
  const formats = new Set<RasterFormat>(['webp', 'avif']);
  const own = defaultOutputFormat(inputFormat);
  if (own !== 'svg') formats.add(own);
  const suitable = [...formats].filter(
    (f) => (!inspected.animated || canAnimate(f)) && (!inspected.meta.hasAlpha || canHoldAlpha(f)),
  );
  const candidates: Candidate[] = [];
  // Vector input without a resize: the original SVG competes with its rasterisations.
  if (own === 'svg' && params.resize === undefined) candidates.push(await keepInput(request));
  // One at a time: each encoder already uses every core.
  for (const format of suitable) {
    throwIfAborted(request.signal);
    candidates.push(await encode(request, params, inspected, limits, format, `candidate-${format}`));
  }
  const best = candidates.reduce((a, b) => (b.size < a.size ? b : a));
  // Losers would only fill the work directory until the job ends.
  await Promise.all(
    candidates.filter((c) => c !== best && c.path !== request.input.path).map((c) => rm(c.path)),
  );
  if (best.format === 'svg') return best;
  const path = join(request.workDir, `output.${extensionOf(best.format)}`);
  await rename(best.path, path);
  return { ...best, path };
}

async function encode(
  request: ProcessRequest,
  params: ResolvedImageParams,
  inspected: InspectedInput,
  limits: InputLimits,
  format: RasterFormat,
  baseName = 'output',
): Promise<Candidate> {
  const pipeline = buildPipeline(request.input.path, inspected, {
    limits,
    // Formats without animation get the first frame only.
    animated: canAnimate(format),
    resize: params.resize,
  });
  const path = join(request.workDir, `${baseName}.${extensionOf(format)}`);
  const encoder = applyEncoder(pipeline, format, {
    level: params.compression,
    hasAlpha: inspected.meta.hasAlpha,
  });
  const info = await encoder.toFile(path).catch((error: unknown) => {
    throw toInputError(error);
  });
  throwIfAborted(request.signal);
  return { path, format, size: info.size };
}

/**
 * Lossless JPEG: drop the metadata segments and keep the compressed pixels byte for byte. Only possible
 * when no pixel change is needed: no orientation to apply and no colour profile or CMYK to convert.
 */
async function stripJpegLosslessly(
  request: ProcessRequest,
  inspected: InspectedInput,
): Promise<Candidate | undefined> {
  const { meta } = inspected;
  const pixelsNeedChange = (meta.orientation ?? 1) > 1 || meta.icc !== undefined || meta.space === 'cmyk';
  if (pixelsNeedChange) return undefined;
  const stripped = stripJpegMetadata(await readFile(request.input.path));
  if (stripped === undefined) return undefined;
  const path = join(request.workDir, `output.${extensionOf('jpeg')}`);
  await writeFile(path, stripped);
  throwIfAborted(request.signal);
  return { path, format: 'jpeg', size: stripped.length };
}

/** The input as the output (a copy, so the runner may move or delete the output freely). */
async function keepInput(request: ProcessRequest): Promise<Candidate> {
  const format = request.input.format;
  const path = join(request.workDir, `output.${extensionOf(format)}`);
  await copyFile(request.input.path, path);
  return { path, format, size: (await stat(path)).size };
}

function extensionOf(format: string): string {
  return formatInfo(format)?.extension ?? format;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}
