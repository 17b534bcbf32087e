/**
 * Decoding and comparison helpers: tests judge outputs by their decoded pixels, never by existence.
 * Similarity is measured on greyscale versions downscaled to a common size, which is what a viewer
 * judges at a glance and keeps the comparison fast on 12 MP photos.
 */
import sharp, { type Sharp } from 'sharp';

export interface Decoded {
  format: string;
  /** Size of one frame. */
  width: number;
  height: number;
  frames: number;
  hasAlpha: boolean;
  channels: number;
  hasExif: boolean;
  hasIcc: boolean;
  orientation: number | undefined;
}

export async function decode(input: string | Buffer): Promise<Decoded> {
  const meta = await sharp(input, { animated: true }).metadata();
  // Force a full decode so truncated output fails here, not silently.
  await sharp(input, { animated: true, failOn: 'error' }).raw().toBuffer();
  return {
    format: meta.format,
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    frames: meta.pages ?? 1,
    hasAlpha: meta.hasAlpha,
    channels: meta.channels,
    hasExif: meta.exif !== undefined,
    hasIcc: meta.icc !== undefined,
    orientation: meta.orientation,
  };
}

type ImageSource = string | Buffer | Sharp;

const COMPARE_WIDTH = 512;

async function greyPixels(source: ImageSource, width: number, height: number): Promise<Uint8Array> {
  // A pipeline's own operations (a crop, a rotation) are run first: sharp keeps one resize per pipeline.
  const image =
    typeof source === 'string' || Buffer.isBuffer(source) ? sharp(source) : await materialise(source);
  // Transparent pixels are compared as if on white, the way they are shown.
  return image
    .flatten({ background: '#ffffff' })
    .resize(width, height, { fit: 'fill' })
    .greyscale()
    .raw()
    .toBuffer();
}

async function materialise(pipeline: Sharp): Promise<Sharp> {
  const { data, info } = await pipeline.clone().raw().toBuffer({ resolveWithObject: true });
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
}

/**
 * Greyscale pixels of both images at the same size: the output's aspect ratio, 512 px wide at most. The
 * reference may be a sharp pipeline (e.g. the input with `.autoOrient()`), so its size is not read.
 */
async function pixelPair(
  output: string | Buffer,
  reference: ImageSource,
): Promise<{ x: Uint8Array; y: Uint8Array; width: number }> {
  const meta = await sharp(output).metadata();
  const width = Math.min(COMPARE_WIDTH, meta.width);
  const height = Math.max(1, Math.round(((meta.pageHeight ?? meta.height) * width) / meta.width));
  const [x, y] = await Promise.all([greyPixels(output, width, height), greyPixels(reference, width, height)]);
  return { x, y, width };
}

/** Peak signal-to-noise ratio in dB; above ~30 dB differences are hard to see, Infinity when identical. */
export async function psnr(output: string | Buffer, reference: ImageSource): Promise<number> {
  const { x, y } = await pixelPair(output, reference);
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    sum += d * d;
  }
  const mse = sum / x.length;
  return mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse);
}

/** Mean SSIM over 8×8 blocks (1 = identical; ~0.9+ looks the same at this scale). */
export async function ssim(output: string | Buffer, reference: ImageSource): Promise<number> {
  const { x, y, width } = await pixelPair(output, reference);
  const height = x.length / width;
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  const block = 8;
  let total = 0;
  let count = 0;
  for (let by = 0; by + block <= height; by += block) {
    for (let bx = 0; bx + block <= width; bx += block) {
      let sx = 0;
      let sy = 0;
      let sxx = 0;
      let syy = 0;
      let sxy = 0;
      for (let j = 0; j < block; j++) {
        for (let i = 0; i < block; i++) {
          const k = (by + j) * width + bx + i;
          const px = x[k] ?? 0;
          const py = y[k] ?? 0;
          sx += px;
          sy += py;
          sxx += px * px;
          syy += py * py;
          sxy += px * py;
        }
      }
      const n = block * block;
      const mx = sx / n;
      const my = sy / n;
      const vx = sxx / n - mx * mx;
      const vy = syy / n - my * my;
      const cov = sxy / n - mx * my;
      total += ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
      count++;
    }
  }
  return total / count;
}
