/**
 * Crop, rotate and mirrors for animations. libvips holds an animation as one tall strip of frames, so
 * rotating or flipping the strip would also reorder (or interleave) the frames. Here each frame is
 * transformed on its own and the frames are stacked again into a lossless animated WebP in the job's work
 * directory, with the original frame delays and loop count; the usual pipeline then resizes, converts and
 * encodes it as for any animation. Only requests with a rotation or vertical flip come here: a crop
 * alone, a horizontal mirror and resizing work on the strip directly.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import type { ImageLimits } from './config.ts';
import { applyGeometry, orientedSize } from './geometry.ts';
import type { GeometryRequest } from './params.ts';
import { type ImageSource, safetyOptions } from './source.ts';

export function needsFrameGeometry(
  source: ImageSource,
  g: GeometryRequest,
  animatedOutput: boolean,
): boolean {
  return source.animated && animatedOutput && (g.rotate !== 0 || g.flip);
}

export interface FrameGeometryResult {
  source: ImageSource;
  /** What is left for the pipeline: the resize. */
  geometry: GeometryRequest;
}

export async function applyFrameGeometry(
  source: ImageSource,
  g: GeometryRequest,
  workDir: string,
  limits: ImageLimits,
  signal: AbortSignal,
): Promise<FrameGeometryResult> {
  const { width, height: frameHeight } = orientedSize(source);
  const { data, info } = await sharp(source.path, {
    ...safetyOptions(limits),
    ...source.open,
    animated: true,
  })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const frameBytes = width * frameHeight * 4;
  const frames = Math.floor(data.length / frameBytes);
  if (info.width !== width || frames < 1) throw new Error('animation frames do not match the header');
  // One frame as a still image of the frame's size, for the same geometry code stills use.
  const frameSource: ImageSource = {
    ...source,
    animated: false,
    frames: 1,
    applyOrientation: false,
    meta: { ...source.meta, width, height: frameHeight, pageHeight: undefined, pages: 1 },
  };
  const stillGeometry: GeometryRequest = { ...g, resize: undefined };
  const transformed: Buffer[] = [];
  let outWidth = 0;
  let outHeight = 0;
  for (let i = 0; i < frames; i++) {
    signal.throwIfAborted();
    const frame = data.subarray(i * frameBytes, (i + 1) * frameBytes);
    const raw = sharp(frame, { raw: { width, height: frameHeight, channels: 4 } });
    const out = await applyGeometry(raw, frameSource, stillGeometry, { animated: false, alphaOutput: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    outWidth = out.info.width;
    outHeight = out.info.height;
    transformed.push(out.data);
  }
  const path = join(workDir, 'frames.webp');
  const { delay, loop } = source.meta;
  await sharp(Buffer.concat(transformed), {
    raw: { width: outWidth, height: outHeight * frames, channels: 4, pageHeight: outHeight },
  })
    .webp({ lossless: true, effort: 0, ...(delay === undefined ? {} : { delay }), loop: loop ?? 0 })
    .toFile(path);
  const meta = await sharp(path).metadata();
  return {
    source: { ...source, path, open: {}, meta, applyOrientation: false },
    geometry: { crop: undefined, rotate: 0, flip: false, flop: false, resize: g.resize },
  };
}
