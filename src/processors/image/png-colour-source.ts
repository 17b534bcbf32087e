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
 */
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Metadata } from 'sharp';
import { profileForTags, withProfileForTags } from './png-colour-profile.ts';
import { pngColourTags } from './quality/png-colour.ts';

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
  const copy = join(workDir, 'colour-profiled.png');
  await writeFile(copy, withProfileForTags(await readFile(path), profileForTags(tags)));
  return copy;
}
