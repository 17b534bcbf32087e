/**
 * Small real photos for the heavy quality suites: lossless centre crops (jpegtran, no re-encoding) of the
 * corpus camera JPEGs, 640×480 (0.3 MP; one 320×240) with their EXIF, ICC profile and orientation kept. A
 * quality search costs time with the pixel count, so a suite on these runs ~4-40× faster than on the 1.2-12 MP
 * originals while the perceptual targets are asserted the same way. Made once per machine, in tmpdir.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpus } from './corpus.ts';

const dir = join(tmpdir(), 'presso-small-corpus');

/**
 * A `width`×`height` crop from the centre of `source` (stored size `sourceSize`, as corpus.ts documents
 * it), with offsets on the 16 px MCU grid so jpegtran crops exactly.
 */
function centreCrop(
  source: string,
  sourceSize: [number, number],
  name: string,
  width: number,
  height: number,
): string {
  const path = join(dir, name);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const x = Math.floor((sourceSize[0] - width) / 2 / 16) * 16;
  const y = Math.floor((sourceSize[1] - height) / 2 / 16) * 16;
  // Written beside, then renamed: test files running in parallel never read a half-written crop.
  const partial = `${path}.${process.pid}.partial`;
  execFileSync('jpegtran', [
    '-copy',
    'all',
    '-crop',
    `${width}x${height}+${x}+${y}`,
    '-outfile',
    partial,
    source,
  ]);
  renameSync(partial, path);
  return path;
}

export const smallCorpus = {
  /** 640×480 of the Canon SX530 photo, with its EXIF and embedded ICC profile. */
  canonPhoto: centreCrop(corpus.canonPhoto, [1280, 960], 'canon-640x480.jpg', 640, 480),
  /**
   * 320×240 of the same photo (EXIF and ICC profile too: trees, road, cars, a bridge), for conversions
   * whose property does not need the search's strict level order: a quarter of the 640×480's encodes.
   */
  canonPhoto320: centreCrop(corpus.canonPhoto, [1280, 960], 'canon-320x240.jpg', 320, 240),
  /** 640×480 of the Xiaomi photo, with its EXIF and GPS position. */
  gpsPhoto: centreCrop(corpus.gpsPhoto, [4000, 3000], 'gps-640x480.jpg', 640, 480),
  /** 640×480 of the phone photo whose EXIF Orientation is 3. */
  rotatedPhoto: centreCrop(corpus.rotatedPhoto, [4000, 3000], 'rotated-640x480.jpg', 640, 480),
  /** 2048×1600 of the Xiaomi photo: larger than the 1536 px score mosaic, for band-decoding checks. */
  gpsPhotoMosaic: centreCrop(corpus.gpsPhoto, [4000, 3000], 'gps-2048x1600.jpg', 2048, 1600),
} as const;
