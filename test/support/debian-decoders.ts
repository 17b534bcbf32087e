/**
 * The guarantee as an outside auditor checks it: the output decoded by Debian's own decoders (`djpeg`,
 * `dwebp`, `avifdec`), the source decoded the same way (a PNG source by the metric's own colour-managed
 * decode, which reads it as the reference `ssimulacra2` does), and SSIMULACRA 2 computed on the WHOLE
 * image, never a mosaic. Presso's native metric matches the published cloudinary/ssimulacra2 within 0.08
 * mean abs. difference on test/fixtures/ssimulacra2; when SSIMULACRA2_BIN names that binary it scores the
 * same two decodes as well.
 *
 * A JPEG source's embedded ICC profile is applied to djpeg's pixels (djpeg leaves it to the viewer): Presso
 * writes sRGB, so comparing unconverted source pixels with them would measure the profile, not the codec.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { decodeRgb, fromRaw } from '../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';
import type { RgbImage } from '../../src/processors/shared/metric/ssimulacra2.ts';

const run = promisify(execFile);

/** A PPM/PGM/PAM file's pixels (8-bit: what djpeg and dwebp write). */
export function parseNetpbm(file: Buffer): RgbImage {
  const magic = file.toString('latin1', 0, 2);
  let at = 2;
  const fields: Record<string, number> = {};
  const token = () => {
    for (;;) {
      while (/\s/.test(String.fromCharCode(file[at]!))) at++;
      if (file[at] !== 0x23) break; // '#': a comment to the end of the line
      while (file[at] !== 0x0a) at++;
    }
    const start = at;
    while (!/\s/.test(String.fromCharCode(file[at]!))) at++;
    return file.toString('latin1', start, at);
  };
  if (magic === 'P7') {
    for (let key = token(); key !== 'ENDHDR'; key = token()) {
      const value = token();
      if (key !== 'TUPLTYPE') fields[key] = Number(value);
    }
  } else {
    fields.WIDTH = Number(token());
    fields.HEIGHT = Number(token());
    fields.MAXVAL = Number(token());
    fields.DEPTH = magic === 'P5' ? 1 : 3;
  }
  at++; // the one whitespace byte before the samples
  if (fields.MAXVAL !== 255) throw new Error(`not an 8-bit netpbm file (maxval ${fields.MAXVAL})`);
  const { WIDTH: width = 0, HEIGHT: height = 0, DEPTH: depth = 3 } = fields;
  const data = new Uint8Array(file.subarray(at, at + width * height * depth));
  return fromRaw(data, width, height, depth);
}

/** Decodes `file` (of `format`) as Debian's decoder for that format does, to 8-bit RGB(A). */
export async function debianDecode(file: string, format: string): Promise<RgbImage> {
  const dir = await mkdtemp(join(tmpdir(), 'presso-audit-'));
  try {
    if (format === 'jpeg' || format === 'jpg') {
      const out = join(dir, 'out.pnm');
      await run('djpeg', ['-outfile', out, file]);
      return await withProfileAndOrientation(parseNetpbm(await readFile(out)), file);
    }
    if (format === 'webp') {
      const out = join(dir, 'out.pam');
      await run('dwebp', [file, '-pam', '-o', out]);
      const image = parseNetpbm(await readFile(out));
      return (await isOpaque(image)) ? dropAlpha(image) : image;
    }
    if (format === 'avif') {
      const out = join(dir, 'out.png');
      // --ignore-icc: Presso's AVIF carries no profile beyond its nclx (sRGB) colour description.
      await run('avifdec', ['-d', '8', '--ignore-icc', file, out]);
      const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      const image = fromRaw(new Uint8Array(data), info.width, info.height, info.channels);
      return (await isOpaque(image)) ? dropAlpha(image) : image;
    }
    // PNG (and anything else): the metric's decode, colour-managed like the reference tool's PNG reader.
    return await decodeRgb(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** djpeg's pixels with the JPEG's ICC profile applied and its EXIF orientation, as a viewer shows them. */
async function withProfileAndOrientation(image: RgbImage, jpeg: string): Promise<RgbImage> {
  const meta = await sharp(jpeg).metadata();
  const orientation = meta.orientation ?? 1;
  if (meta.icc === undefined && orientation === 1) return image;
  const raw = { raw: { width: image.width, height: image.height, channels: image.channels as 3 } };
  let pipeline = sharp(image.data, raw);
  if (meta.icc !== undefined) {
    const dir = await mkdtemp(join(tmpdir(), 'presso-icc-'));
    const icc = join(dir, 'source.icc');
    await writeFile(icc, meta.icc);
    const tagged = await pipeline.withIccProfile(icc).png({ compressionLevel: 0 }).toBuffer();
    await rm(dir, { recursive: true, force: true });
    pipeline = sharp(tagged);
  }
  if (orientation !== 1) {
    const png = await pipeline.png({ compressionLevel: 0 }).withMetadata({ orientation }).toBuffer();
    pipeline = sharp(png).autoOrient();
  }
  return decodeRgb(await pipeline.png({ compressionLevel: 0 }).toBuffer());
}

async function isOpaque(image: RgbImage): Promise<boolean> {
  if (image.channels !== 4) return true;
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i] !== 255) return false;
  return true;
}

function dropAlpha(image: RgbImage): RgbImage {
  if (image.channels !== 4) return image;
  const n = image.width * image.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    out[i * 3] = image.data[i * 4]!;
    out[i * 3 + 1] = image.data[i * 4 + 1]!;
    out[i * 3 + 2] = image.data[i * 4 + 2]!;
  }
  return { data: out, width: image.width, height: image.height, channels: 3 };
}

/** Flattens an RGBA reference on white (a JPEG output of an alpha input is flattened that way). */
function flattenOnWhite(image: RgbImage): RgbImage {
  if (image.channels !== 4) return image;
  const n = image.width * image.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = image.data[i * 4 + 3]! / 255;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(image.data[i * 4 + c]! * a + 255 * (1 - a));
  }
  return { data: out, width: image.width, height: image.height, channels: 3 };
}

/** The format of a file by its name, for the decoder to use. */
export function formatOf(file: string): string {
  const ext = file.toLowerCase().split('.').pop() ?? '';
  return ext === 'jpg' ? 'jpeg' : ext;
}

export interface AuditScore {
  /** Presso's native metric on the two Debian decodes, whole image. */
  score: number;
  /** The published ssimulacra2 on the same decodes (only when SSIMULACRA2_BIN is set). */
  reference?: number;
}

/** SSIMULACRA 2 of `output` (of `outputFormat`) against `source`, both decoded by Debian's decoders. */
export async function auditScore(source: string, output: string, outputFormat: string): Promise<AuditScore> {
  const decodedSource = await debianDecode(source, formatOf(source));
  const decodedOutput = await debianDecode(output, outputFormat);
  const reference = outputFormat === 'jpeg' ? flattenOnWhite(decodedSource) : decodedSource;
  const [a, b] = sameLayout(reference, decodedOutput);
  const score = await measureSsimulacra2(a, b);
  const bin = process.env.SSIMULACRA2_BIN;
  if (bin === undefined) return { score };
  return { score, reference: await referenceBinary(bin, a, b) };
}

/** An opaque output of an alpha-free source may still carry alpha (or not): give both the same channels. */
function sameLayout(a: RgbImage, b: RgbImage): [RgbImage, RgbImage] {
  if (a.channels === b.channels) return [a, b];
  return [dropAlpha(a), dropAlpha(b)];
}

async function referenceBinary(bin: string, a: RgbImage, b: RgbImage): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'presso-ref-'));
  try {
    const write = (image: RgbImage, name: string) =>
      sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
        .png({ compressionLevel: 1 })
        .toFile(join(dir, name));
    await write(a, 'a.png');
    await write(b, 'b.png');
    const { stdout } = await run(bin, [join(dir, 'a.png'), join(dir, 'b.png')]);
    return Number(stdout.trim().split(/\s+/).pop());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
