/**
 * The image processor: recompression, format conversion (including `auto`, the smallest modern format),
 * geometry (orientation, crop, rotate, mirror, resize), colour and metadata handling, and metadata
 * extraction. Inputs sharp cannot read are decoded by source.ts; outputs are written by output.ts.
 */
import os from 'node:os';
import sharp from 'sharp';
import { ValidationError } from '../../errors/catalog.ts';
import { typedProcessor } from '../module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
// The image processor's admission budget is counted in bytes (limits.ts `jobShare`).
import { AdmissionBudget } from '../shared/admission-budget.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { mosaicLayout, SEARCH_MOSAIC } from '../shared/metric/pixels.ts';
import { scoredPixels } from '../shared/metric/score.ts';
import { toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { DEFAULT_IMAGE_LIMITS, IMAGE_TIME_EARNED, type ImageLimits } from './config.ts';
import { applyFrameGeometry, needsFrameGeometry } from './frame-geometry.ts';
import { checkGeometry } from './geometry.ts';
import { cutJpegTrailer } from './jpeg-trailer.ts';
import { jobShare, largestImageShare } from './limits.ts';
import { describeImage } from './metadata.ts';
import { defaultOutputFormat, produceOutput } from './output.ts';
import { formatCanAnimate, hasGeometry } from './output-context.ts';
import {
  EXTRA_OUTPUT_FORMATS,
  imageParams,
  RASTER_OUTPUT_FORMATS,
  type ResolvedImageParams,
} from './params.ts';
import { preparedBytes } from './quality/search-references.ts';
import { checkScoredPixels } from './quality/whole-score.ts';
import { openSource } from './source.ts';

// libvips defaults to one worker thread on glibc without jemalloc, which halves AVIF/WebP speed on two
// cores. The cache only helps when the same file is processed repeatedly; here it only holds memory.
sharp.concurrency(os.availableParallelism());
sharp.cache(false);

/** Limits of the `images` config section; unset ones take the defaults. */
export type ImageProcessorOptions = Partial<ImageLimits>;

/** sharp reads the first set; the rest are decoded by our own code or Debian tools (see source.ts). */
const INPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff', 'svg', 'heic', 'bmp', 'ico'] as const;

/**
 * `budget` is the process's in-flight memory budget, in bytes (see `jobShare`); tests pass their own
 * to watch it. Without one, a budget of `memoryInFlight` is made, which must hold the largest image.
 */
export function createImageProcessor(
  options: ImageProcessorOptions = {},
  budget?: AdmissionBudget,
): Processor {
  const limits = withOverrides(DEFAULT_IMAGE_LIMITS, options);
  if (budget === undefined && limits.memoryInFlight < largestImageShare(limits)) {
    throw new RangeError(
      `the image memory budget (${limits.memoryInFlight} bytes) cannot hold the largest accepted image ` +
        `(${limits.maxPixels} pixels: ${largestImageShare(limits)} bytes)`,
    );
  }
  const memory = budget ?? new AdmissionBudget(limits.memoryInFlight);
  return typedProcessor(imageParams, {
    name: 'image',
    kind: 'image',
    inputFormats: INPUT_FORMATS,
    outputFormats: [...RASTER_OUTPUT_FORMATS, ...EXTRA_OUTPUT_FORMATS],
    process: (request) => processImage(request, limits, memory),
  });
}

async function processImage(
  request: ProcessRequest<ResolvedImageParams>,
  limits: ImageLimits,
  budget: AdmissionBudget,
): Promise<ProcessResult> {
  const { params } = request;
  request.signal.throwIfAborted();
  const inputFormat = request.input.format;
  const target = params.format ?? defaultOutputFormat(inputFormat);
  if (target === 'svg' && inputFormat !== 'svg') {
    throw ValidationError.field('image.format', 'svg output needs an SVG input');
  }

  // What the file earns by its size (shared/time-budget.ts), then by the pixels its header declares too.
  const bytes = request.input.size;
  const deadline = new Deadline(earnedTimeMs(limits, IMAGE_TIME_EARNED, { bytes }), 'the image');
  const source = await openSource({
    path: request.input.path,
    format: inputFormat,
    ...toolScope(request),
    page: params.page,
    resize: params.resize,
    crop: params.crop !== undefined,
    rasterise: target !== 'svg',
    compression: params.compression,
    limits,
    deadline,
    signal: request.signal,
  });
  checkGeometry(source, params);
  deadline.limitTo(earnedTimeMs(limits, IMAGE_TIME_EARNED, { bytes, units: declaredMegapixels(source) }));
  const metadata = request.wantMetadata ? describeImage(source.inputMeta, inputFormat) : undefined;
  request.signal.throwIfAborted();

  const { meta } = source;
  // Lossless outputs are never scored: no metric scratch to reserve. A lossy output is checked on the whole
  // image (quality/whole-score.ts), PNG and JXL outputs on the wide mosaic.
  const [width, height] = [meta.width ?? 0, meta.pageHeight ?? meta.height ?? 0];
  const lossless = params.compression === 'lossless';
  const scored = lossless ? 0 : Math.max(scoredPixels(width, height), checkScoredPixels(width, height));
  // A lossy search's prepared proxy (quality/search-references.ts) stays beside its output checks.
  const searched = !lossless && ['jpeg', 'webp', 'avif', 'auto'].includes(target);
  const channels = meta.hasAlpha ? 4 : 3;
  const proxy = mosaicLayout(width, height, SEARCH_MOSAIC);
  const [proxyWidth, proxyHeight] = proxy
    ? [proxy.tile * proxy.xs.length, proxy.tile * proxy.ys.length]
    : [width, height];
  const prepared = searched ? preparedBytes(proxyWidth, proxyHeight, channels) : 0;
  const release = await budget.acquire(jobShare(meta, source.frames, scored, prepared), request.signal);
  let output: Awaited<ReturnType<typeof produceOutput>>;
  const abandoned: Promise<unknown>[] = [];
  try {
    const animatedOutput = target === 'auto' || formatCanAnimate(target);
    const work = needsFrameGeometry(source, params, animatedOutput)
      ? await applyFrameGeometry(source, params, request.workDir, limits, request.signal)
      : { source, geometry: params };
    output = await produceOutput(
      { request, params: { ...params, ...work.geometry }, source: work.source, limits, deadline, abandoned },
      target,
    );
  } finally {
    // An encode that outlived the job still holds its memory: release the budget when it ends.
    if (abandoned.length === 0) release();
    else void Promise.allSettled(abandoned).then(release);
  }
  if (inputFormat === 'jpeg' && output.format === 'jpeg' && !hasGeometry(params)) {
    output = await cutJpegTrailer(request.input, output, params.metadata, request.workDir);
  }
  request.signal.throwIfAborted();
  return {
    path: output.path,
    format: output.format,
    // A sanitised SVG must never be swapped back for the original by the never-larger rule.
    transformed: hasGeometry(params) || output.format !== inputFormat || inputFormat === 'svg',
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** Megapixels the decoder will produce: every frame of an animation (the rasterised size for an SVG). */
function declaredMegapixels(source: {
  meta: { width?: number; height?: number; pageHeight?: number };
  frames: number;
}): number {
  const { width = 0, height = 0, pageHeight } = source.meta;
  return (width * (pageHeight ?? height) * Math.max(1, source.frames)) / 1_000_000;
}
