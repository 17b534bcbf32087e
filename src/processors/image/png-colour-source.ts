/**
 * A PNG input tagged with gAMA/cHRM (and no sRGB or iCCP chunk) is opened as a copy whose chunks are
 * replaced by the equivalent ICC profile (png-colour-profile.ts).
 *
 * libvips ignores these chunks, so Presso used to encode the stored values as if they were sRGB: a PNG
 * tagged gamma 2.2 with Adobe RGB primaries came back (level high) as PNG, JPEG and WebP scoring 59–63
 * against the colour-managed input on SSIMULACRA 2 — a colour shift in every viewer that honours the
 * chunks (browsers do), and below the level's target. With a profile, the file takes the path every
 * profiled input takes: converted to sRGB for output, or kept with its profile under `metadata: keep`.
 * A byte-level copy keeps 16-bit depth, EXIF, XMP and text chunks as they are.
 *
 * Except at 16 bits: libvips (sharp 0.35, libvips 8.18) mis-decodes a colourful 16-bit PNG carrying any ICC
 * profile, even a plain sRGB one (julia-set.png: mean error 3 levels, up to 111 on saturated pixels, while the
 * same pixels at 8 bits convert exactly). A 16-bit tagged PNG is therefore converted here, with the metric's
 * own 16-bit conversion (shared/metric/png-colour.ts), to a 16-bit sRGB copy without a profile; its text and EXIF
 * chunks are not carried over. 16-bit PNGs with an iCCP profile still go through libvips (docs/benchmarks.md).
 */
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Metadata } from 'sharp';
import sharp from 'sharp';
import { storedSamples } from '../shared/metric/pixels.ts';
import { pngColourTags, taggedToSrgb16 } from '../shared/metric/png-colour.ts';
import { profileForTags, withProfileForTags } from './png-colour-profile.ts';

/** Colour chunks sit before the image data; a head this large holds them unless text chunks are huge. */
const HEAD_BYTES = 1 << 20;

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The path of the profiled copy of `path` when it is a gAMA/cHRM-tagged PNG; undefined otherwise. */
export async function profiledCopyOfTaggedPng(
  path: string,
  meta: Metadata,
  workDir: string,
): Promise<string | undefined> {
  if (meta.format !== 'png' || meta.icc !== undefined) return undefined;
  const tags = pngColourTags(await readHead(path));
  if (tags === undefined) return undefined;
  if (meta.depth === 'ushort') {
    const samples = await storedSamples(sharp(path));
    const { data, channels } = taggedToSrgb16(samples, tags);
    const converted = join(workDir, 'colour-converted.png');
    // Compression level 1: the copy is read once by the pipeline, never returned.
    await sharp(data, {
      raw: { width: samples.width, height: samples.height, channels: channels === 4 ? 4 : 3 },
    })
      .toColourspace('rgb16')
      .png({ compressionLevel: 1 })
      .toFile(converted);
    return converted;
  }
  const copy = join(workDir, 'colour-profiled.png');
  await writeFile(copy, withProfileForTags(await readFile(path), profileForTags(tags)));
  return copy;
}
