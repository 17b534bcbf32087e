/**
 * Opens an input for the pipeline: reads its header, refuses it if it breaks the limits (before any
 * pixel is decoded), and turns formats sharp cannot read (HEVC HEIC, BMP, ICO, SVG to sanitise) into a
 * file it can, in the job's work directory (and a gAMA/cHRM-tagged PNG into one with the equivalent ICC
 * profile, which libvips honours).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { UnprocessableInputError, ValidationError } from '../../errors/catalog.ts';
import type { Deadline } from '../shared/deadline.ts';
import { decodeBmp, type RgbaImage, readBmpFileHeader } from './codecs/bmp.ts';
import { decodeHeic } from './codecs/heif.ts';
import { pickIconEntry, readIconDirectory, readIconEntry } from './codecs/ico.ts';
import { type FilterLoad, filterMilliseconds } from './codecs/svg-filters.ts';
import { checkSvgLimits } from './codecs/svg-limits.ts';
import { renderSvgFile, sanitiseSvgFile } from './codecs/svg-process.ts';
import type { ImageLimits } from './config.ts';
import { checkPixelLimits } from './limits.ts';
import type { CompressionLevel, ResizeRequest } from './params.ts';
import { toInputError } from './pipeline-errors.ts';
import { profiledCopyOfTaggedPng } from './png-colour-source.ts';

export interface ImageSource {
  /** What sharp reads (the input itself or a decoded/sanitised copy). */
  path: string;
  /** Options to open `path` with (page, SVG density), besides the safety options. */
  open: SharpOptions;
  /** sharp's header of `path` opened with `open`. */
  meta: Metadata;
  /** Header of the original input, for the `metadata` result (differs for HEIC). */
  inputMeta: Metadata;
  /** More than one frame in a format whose frames are an animation (GIF, WebP), not pages (TIFF). */
  animated: boolean;
  frames: number;
  /** False when the decoder already applied the orientation (HEIC transforms) or there is none. */
  applyOrientation: boolean;
  /** The sanitised, optimised SVG, for SVG input. */
  svg: string | undefined;
}

export interface SourceRequest {
  path: string;
  format: string;
  /** The tool runs' folders (a `ToolRun`'s): the work directory, the job's folder, the input. */
  workDir: string;
  jobDir?: string;
  inputs?: readonly string[];
  page: number | undefined;
  resize: ResizeRequest | undefined;
  /** A crop is given in the SVG's own pixel size, so the density is not raised. */
  crop: boolean;
  /** Pixels will be needed (false when the only output is the sanitised SVG itself). */
  rasterise: boolean;
  compression: CompressionLevel;
  limits: ImageLimits;
  deadline: Deadline;
  signal: AbortSignal;
}

/** libvips' own pixel guard stays on as a second line behind the header checks. */
export function safetyOptions(limits: ImageLimits): SharpOptions {
  // failOn 'error': refuse truncated/corrupt data instead of returning grey half-images.
  return { failOn: 'error', limitInputPixels: limits.maxPixels };
}

/** Reads only the header; the pixel limit is checked by us afterwards, with a message naming the sizes. */
async function header(path: string, options: SharpOptions, limits: ImageLimits): Promise<Metadata> {
  return sharp(path, { ...safetyOptions(limits), limitInputPixels: false, ...options })
    .metadata()
    .catch((error: unknown) => {
      throw toInputError(error);
    });
}

export async function openSource(req: SourceRequest): Promise<ImageSource> {
  switch (req.format) {
    case 'bmp':
      return openBmp(req);
    case 'ico':
      return openIcon(req);
    case 'svg':
      return openSvg(req);
    default:
      return openSharpInput(req);
  }
}

function refusePage(req: SourceRequest, count: number, noun: string, plural = `${noun}s`): never {
  throw ValidationError.field(
    'image.page',
    `${noun} ${req.page} does not exist: the image has ${count} ${count === 1 ? noun : plural} (0-based)`,
  );
}

async function openSharpInput(req: SourceRequest): Promise<ImageSource> {
  const inputMeta = await header(req.path, {}, req.limits);
  const pages = inputMeta.pages ?? 1;
  const animated = pages > 1 && (inputMeta.format === 'gif' || inputMeta.format === 'webp');
  if (req.page !== undefined && !animated && req.page >= pages) refusePage(req, pages, 'page');
  const frames = animated ? pages : 1;
  checkPixelLimits(inputMeta.width, inputMeta.pageHeight ?? inputMeta.height, frames, req.limits);
  if (inputMeta.format === 'heif' && inputMeta.compression === 'hevc') {
    // The prebuilt libvips decodes only AV1-coded HEIF; iPhone photos are HEVC-coded.
    const decoded = await decodeHeic(req.path, req.workDir, req);
    const meta = await header(decoded, {}, req.limits);
    checkPixelLimits(meta.width, meta.height, 1, req.limits);
    return {
      path: decoded,
      open: {},
      meta,
      inputMeta,
      animated: false,
      frames: 1,
      applyOrientation: false,
      svg: undefined,
    };
  }
  const profiled = await profiledCopyOfTaggedPng(req.path, inputMeta, req.workDir);
  if (profiled !== undefined) return { ...(await finish(profiled, req)), inputMeta, applyOrientation: true };
  const open: SharpOptions = !animated && req.page !== undefined ? { page: req.page } : {};
  const meta = open.page === undefined ? inputMeta : await header(req.path, open, req.limits);
  if (open.page !== undefined) checkPixelLimits(meta.width, meta.height, 1, req.limits);
  return { path: req.path, open, meta, inputMeta, animated, frames, applyOrientation: true, svg: undefined };
}

/** Decoded pixels are written as a fast PNG the rest of the pipeline reads like any input. */
async function fromRgba(image: RgbaImage, req: SourceRequest, name: string): Promise<string> {
  const path = join(req.workDir, name);
  const { width, height, data, hasAlpha } = image;
  let pipeline = sharp(data, { raw: { width, height, channels: 4 } });
  if (!hasAlpha) pipeline = pipeline.removeAlpha();
  await pipeline.png({ compressionLevel: 1 }).toFile(path);
  return path;
}

async function finish(path: string, req: SourceRequest): Promise<ImageSource> {
  const meta = await header(path, {}, req.limits);
  return {
    path,
    open: {},
    meta,
    inputMeta: meta,
    animated: false,
    frames: 1,
    applyOrientation: false,
    svg: undefined,
  };
}

async function openBmp(req: SourceRequest): Promise<ImageSource> {
  const file = await readFile(req.path);
  const { dib } = readBmpFileHeader(file);
  checkPixelLimits(dib.width, dib.height, 1, req.limits);
  return finish(await fromRgba(decodeBmp(file), req, 'bmp-decoded.png'), req);
}

async function openIcon(req: SourceRequest): Promise<ImageSource> {
  const file = await readFile(req.path);
  const entries = readIconDirectory(file);
  const entry = pickIconEntry(entries, req.page);
  if (entry === undefined) refusePage(req, entries.length, 'entry', 'entries');
  checkPixelLimits(entry.width, entry.height, 1, req.limits);
  const decoded = readIconEntry(file, entry);
  if ('rgba' in decoded) return finish(await fromRgba(decoded.rgba, req, 'ico-decoded.png'), req);
  const path = join(req.workDir, 'ico-entry.png');
  await writeFile(path, decoded.png);
  return finish(path, req);
}

const SVG_DPI = 72;

/**
 * Sanitises (svgo) and, when pixels are needed, draws the SVG (librsvg) in the SVG child process, so
 * neither blocks the event loop nor outlives the deadline; filters whose estimated drawing time exceeds
 * the time left are refused before drawing.
 */
async function openSvg(req: SourceRequest): Promise<ImageSource> {
  const { size } = await stat(req.path);
  // The size check comes before reading, so a huge file is never loaded.
  checkSvgLimits('', size, req.limits);
  checkSvgLimits(await readFile(req.path, 'utf8'), size, req.limits);
  const path = join(req.workDir, 'sanitised.svg');
  const sanitised = await sanitiseSvgFile(req.path, path, req.compression !== 'lossless', req);
  const svg = await readFile(path, 'utf8');
  const intrinsic = sanitised.meta;
  checkPixelLimits(intrinsic.width, intrinsic.height, 1, req.limits);
  if (!req.rasterise) {
    return {
      path,
      open: {},
      meta: intrinsic,
      inputMeta: intrinsic,
      animated: false,
      frames: 1,
      applyOrientation: false,
      svg,
    };
  }
  // Render at the density that gives the requested size directly, so the raster is sharp, not upscaled.
  let scale = 1;
  const { width, height } = req.crop ? {} : (req.resize ?? {});
  if (width !== undefined) scale = Math.max(scale, width / intrinsic.width);
  if (height !== undefined) scale = Math.max(scale, height / intrinsic.height);
  const maxScale = Math.sqrt(req.limits.maxPixels / (intrinsic.width * intrinsic.height));
  scale = Math.min(scale, Math.max(1, maxScale), 100);
  const canvas = Math.ceil(intrinsic.width * scale) * Math.ceil(intrinsic.height * scale);
  checkPixelLimits(Math.ceil(intrinsic.width * scale), Math.ceil(intrinsic.height * scale), 1, req.limits);
  checkFilterCost(sanitised.filters, scale, canvas, req.deadline);
  const png = join(req.workDir, 'svg-rendered.png');
  await renderSvgFile(path, png, SVG_DPI * scale, req.limits.maxPixels, req);
  const meta = await header(png, {}, req.limits);
  return {
    path: png,
    open: {},
    meta,
    inputMeta: intrinsic,
    animated: false,
    frames: 1,
    applyOrientation: false,
    svg,
  };
}

/**
 * The estimate errs high (an element whose box cannot be read counts as covering the canvas), so only
 * an estimate of several times the time left is refused; anything slower that gets through is killed
 * at the deadline.
 */
const FILTER_ESTIMATE_SLACK = 4;

function checkFilterCost(filters: FilterLoad, scale: number, pixels: number, deadline: Deadline): void {
  const estimateMs = filterMilliseconds(filters, scale, pixels);
  const leftMs = deadline.remainingMs();
  if (estimateMs > FILTER_ESTIMATE_SLACK * leftMs) {
    throw new UnprocessableInputError(
      `The SVG's filters would take about ${Math.ceil(estimateMs / 1000)} s to draw at ` +
        `${Math.round(pixels / 1e4) / 100} MP; this server allows ${Math.floor(leftMs / 1000)} s.`,
    );
  }
}
