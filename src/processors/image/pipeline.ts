/**
 * Decoding and geometry: opens the input with the service's safety limits, inspects it, and builds the
 * sharp pipeline (orientation, resize, colour) that every output format is encoded from.
 */
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { UnprocessableInputError, UnsupportedMediaError } from '../../errors/catalog.ts';
import type { ResizeRequest } from './params.ts';

export interface InputLimits {
  /** Larger inputs are refused before decoding (decompression bombs). */
  maxPixels: number;
}

export interface InspectedInput {
  meta: Metadata;
  /** More than one frame in a format whose frames are an animation (GIF, WebP), not pages (TIFF). */
  animated: boolean;
}

function baseOptions(limits: InputLimits): SharpOptions {
  // failOn 'error': refuse truncated/corrupt data instead of returning grey half-images.
  return { failOn: 'error', limitInputPixels: limits.maxPixels };
}

export async function inspectInput(path: string, limits: InputLimits): Promise<InspectedInput> {
  const meta = await sharp(path, baseOptions(limits))
    .metadata()
    .catch((error: unknown) => {
      throw toInputError(error);
    });
  // The prebuilt libvips decodes only AV1-coded HEIF; iPhone photos are HEVC-coded.
  if (meta.format === 'heif' && meta.compression === 'hevc') {
    throw new UnprocessableInputError(
      'HEVC-coded HEIC images are not decodable yet; AV1-coded HEIF (AVIF) is.',
    );
  }
  const frames = meta.pages ?? 1;
  const animated = frames > 1 && (meta.format === 'gif' || meta.format === 'webp');
  return { meta, animated };
}

export interface PipelineOptions {
  limits: InputLimits;
  /** Decode all frames (only when the output format can hold them). */
  animated: boolean;
  resize: ResizeRequest | undefined;
}

/**
 * The decode → orient → resize → sRGB pipeline; the caller adds an encoder. Each call decodes anew, so
 * several output formats can be tried from the same input.
 */
export function buildPipeline(path: string, inspected: InspectedInput, options: PipelineOptions): Sharp {
  const animated = options.animated && inspected.animated;
  let pipeline = sharp(path, { ...baseOptions(options.limits), animated });
  // EXIF orientation goes into the pixels, because the tag itself is stripped with the rest of the metadata.
  if ((inspected.meta.orientation ?? 1) > 1) pipeline = pipeline.autoOrient();
  if (options.resize !== undefined) pipeline = applyResize(pipeline, options.resize, animated);
  // Output is sRGB: embedded profiles and CMYK are converted so the stripped file still shows the same colours.
  // Greyscale stays single-channel (smaller); sharp converts it to sRGB only if a profile asks.
  if (inspected.meta.space !== 'b-w' && inspected.meta.space !== 'grey16')
    pipeline = pipeline.toColourspace('srgb');
  return pipeline;
}

function applyResize(pipeline: Sharp, resize: ResizeRequest, animated: boolean): Sharp {
  if (resize.mode === 'auto') {
    return pipeline.resize({ width: resize.width, height: resize.height, fit: 'inside' });
  }
  // Content-aware crops (attention, entropy) analyse one image; on a frame strip they would pick a
  // region across frames, so animations are cropped around the centre.
  let position: string | number = resize.gravity;
  if (resize.gravity === 'attention' || resize.gravity === 'entropy') {
    position = animated ? 'centre' : sharp.strategy[resize.gravity];
  }
  return pipeline.resize({ width: resize.width, height: resize.height, fit: 'cover', position });
}

/** Maps a sharp/libvips failure to the service's error for that input problem. */
export function toInputError(error: unknown): Error {
  // System errors (disk full, missing work directory) are the server's problem, not the input's.
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string') return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/unsupported image format/i.test(message)) {
    return new UnsupportedMediaError('The file is not an image format this service can read.');
  }
  if (/exceeds pixel limit/i.test(message)) {
    return new UnprocessableInputError('The image has more pixels than this server accepts.', error);
  }
  const detail = message.split('\n')[0]?.trim() ?? '';
  return new UnprocessableInputError(`The image is corrupt or truncated: ${detail}`, error);
}
