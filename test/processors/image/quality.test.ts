import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import sharp from 'sharp';
import { searchQuality } from '../../../src/processors/image/quality/search.ts';
import { QUALITY_TARGETS } from '../../../src/processors/image/quality/targets.ts';
import { decodeJpegMosaic, decodeRgb, mosaic } from '../../../src/processors/shared/metric/pixels.ts';
import {
  measureSsimulacra2,
  SCORE_MOSAIC,
  scoreAgainstMosaic,
  scoreEncodedAgainstMosaic,
  scoreOutput,
  scorePixels,
} from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presso-quality-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
  await removeWorkDirs();
});

/**
 * One run per input and request in this file: the astronaut at `high` is judged against its target in one
 * test and as near-lossless in another, from the same output (the same request gives the same bytes).
 */
const runs = new Map<string, ReturnType<typeof runImage>>();
function runOnce(path: string, params: Record<string, unknown>): ReturnType<typeof runImage> {
  const key = `${path}\0${JSON.stringify(params)}`;
  if (!runs.has(key)) runs.set(key, runImage(path, params));
  return runs.get(key)!;
}

/**
 * A 256×256 reference PNG of a real photo (the Canon JPEG, downscaled) and distortions of it: the metric's
 * order holds as at 512×512 (q95 88.6 here against 87.7, q5 -38 against -51) at a quarter of the pixels.
 * Written once for the file.
 */
let ref: Promise<string> | undefined;
function reference(): Promise<string> {
  ref ??= (async () => {
    const path = join(dir, 'ref.png');
    await sharp(corpus.canonPhoto).autoOrient().resize(256, 256, { fit: 'cover' }).png().toFile(path);
    return path;
  })();
  return ref;
}

/**
 * `path` downscaled to `width` as a PNG in this file's folder: a smaller photo for a test whose property
 * does not depend on the size (the quality search and the level targets are the same at any size).
 */
async function downscaled(path: string, width: number): Promise<string> {
  const out = join(dir, `${width}-${basename(path, extname(path))}.png`);
  await sharp(path).resize(width).png().toFile(out);
  return out;
}

// The metric as the service runs it (the addon; the TypeScript port gives the same numbers bit for bit,
// ssimulacra2-native.test.ts): 0.01 CPU-s a score here where the port took 0.1-0.6.
describe('SSIMULACRA 2', () => {
  it('scores identical images 100 and more distortion lower', async () => {
    const ref = await reference();
    const pixels = await decodeRgb(ref);
    assert.equal(await measureSsimulacra2(pixels, pixels), 100);
    const scores: number[] = [];
    for (const quality of [95, 80, 50, 20, 5]) {
      const jpeg = await sharp(ref).jpeg({ quality }).toBuffer();
      scores.push(await measureSsimulacra2(pixels, await decodeRgb(jpeg)));
    }
    for (let i = 1; i < scores.length; i++) assert.ok(scores[i]! < scores[i - 1]!, scores.join(' > '));
    assert.ok(scores[0]! > 85 && scores[4]! < 40, scores.join(', '));
  });

  it('ranks real distortions in the same order as Butteraugli', async () => {
    const ref = await reference();
    const distortions: Record<string, Buffer> = {
      // Encoded as JPEG, then decoded: `.jpeg().png()` on one pipeline would keep only the PNG (lossless).
      jpeg90: await sharp(await sharp(ref).jpeg({ quality: 90 }).toBuffer())
        .png()
        .toBuffer(),
      blur1: await sharp(ref).blur(1).png().toBuffer(),
      jpeg40: await sharp(await sharp(ref).jpeg({ quality: 40 }).toBuffer())
        .png()
        .toBuffer(),
      palette16: await sharp(ref).png({ palette: true, colours: 16, dither: 0 }).toBuffer(),
      blur4: await sharp(ref).blur(4).png().toBuffer(),
    };
    const pixels = await decodeRgb(ref);
    const ours: number[] = [];
    const butteraugli: number[] = [];
    for (const [name, buffer] of Object.entries(distortions)) {
      const path = join(dir, `${name}.png`);
      await writeFile(path, buffer);
      ours.push(await measureSsimulacra2(pixels, await decodeRgb(buffer)));
      butteraugli.push(Number(execFileSync('butteraugli', [ref, path]).toString().trim()));
    }
    // Each is a real distortion (a tie with the reference would count as concordant below).
    for (const [i, name] of Object.keys(distortions).entries())
      assert.ok(ours[i]! < 99, `${name}: ${ours[i]}`);
    // Kendall concordance over all pairs: higher SSIMULACRA 2 ⇔ lower Butteraugli distance.
    let concordant = 0;
    let pairs = 0;
    for (let i = 0; i < ours.length; i++) {
      for (let j = i + 1; j < ours.length; j++) {
        pairs++;
        if (Math.sign(ours[i]! - ours[j]!) === -Math.sign(butteraugli[i]! - butteraugli[j]!)) concordant++;
      }
    }
    assert.ok(
      concordant >= pairs - 1,
      `${concordant}/${pairs}: ${ours.join(',')} vs ${butteraugli.join(',')}`,
    );
  });
});

describe('quality search', () => {
  it('finds the lowest passing quality of a monotonic encoder', async () => {
    const result = await searchQuality({
      min: 1,
      max: 100,
      target: 70,
      maxTrials: 10,
      trial: async (q) => q, // score = quality
    });
    assert.equal(result.quality, 70);
    assert.ok(result.trials.length <= 7, `${result.trials.length} trials`);
  });

  it('stops at the trial cap and keeps the best passing quality', async () => {
    let calls = 0;
    const result = await searchQuality({
      min: 1,
      max: 100,
      start: 90,
      target: 33,
      maxTrials: 3,
      trial: async (q) => {
        calls++;
        return q;
      },
    });
    assert.equal(calls, 3);
    assert.equal(result.stoppedBy, 'trials');
    assert.ok(result.quality >= 33 && result.score !== undefined && result.score >= 33);
  });
});

describe('scoring outputs', () => {
  it('a JPEG decoded band by band gives the same mosaic, and score, as the whole decode', async () => {
    // 2048×1600: larger than the 1536 px mosaic, so the bands are really cut (the 12 MP original took 7 s).
    const reference = await decodeRgb(smallCorpus.gpsPhotoMosaic);
    const wide = mosaic(reference, SCORE_MOSAIC);
    // Progressive with mozjpeg's scans, as the service writes JPEG; without trellis quantisation (0.2 CPU-s of
    // encoding saved), which changes the coefficients, not how the file is decoded.
    const jpeg = await sharp(smallCorpus.gpsPhotoMosaic)
      .jpeg({ mozjpeg: true, trellisQuantisation: false, quality: 60 })
      .toBuffer();
    const whole = mosaic(await decodeRgb(jpeg), SCORE_MOSAIC);
    const banded = await decodeJpegMosaic(jpeg, SCORE_MOSAIC);
    assert.deepEqual([banded.width, banded.height], [whole.width, whole.height]);
    assert.ok(Buffer.from(banded.data).equals(Buffer.from(whole.data)));
    const score = await scoreEncodedAgainstMosaic(wide, jpeg, 'jpeg');
    assert.equal(score, await scoreAgainstMosaic(wide, await decodeRgb(jpeg)));
    assert.ok(score > 50 && score < 95, String(score));
  });
});

describe('compression levels meet their perceptual targets', () => {
  const levels = ['ultra', 'high', 'medium'] as const;
  // strict: each level strictly smaller than the one above (a JPEG photo has room at every level).
  for (const [name, source, width, flatten, strict] of [
    // A 0.3 MP lossless crop of the camera JPEG: the search and the targets are the same, at a quarter of the pixels.
    ['a real camera photo (JPEG)', smallCorpus.canonPhoto, undefined, false, true],
    // The astronaut at 256 px takes the palette at ultra and high and near-lossless at medium: the levels
    // still cross from one path to the other, for 4.5 CPU-s where the 512 px original took 10.8 (its
    // near-lossless `high` is judged below).
    ['a photo PNG', corpus.astronaut, 256, false, false],
    // The Debian logo at 400×300: its transparency and the one palette every level takes, as at 800×600.
    ['an RGBA PNG with transparency', corpus.alphaPng, 400, false, false],
  ] as const) {
    it(`${name}: every level meets its target and sizes are ordered`, async () => {
      const input = width === undefined ? source : await downscaled(source, width);
      const sizes: number[] = [];
      const scores: number[] = [];
      for (const compression of levels) {
        const result = await runOnce(input, { compression });
        const score = await scoreOutput(sharp(input).autoOrient(), result.path, {
          flattenReference: flatten,
        });
        scores.push(score);
        sizes.push(result.outputSize);
        assert.ok(
          score >= QUALITY_TARGETS[compression],
          `${compression}: SSIMULACRA 2 ${score.toFixed(1)} < target ${QUALITY_TARGETS[compression]}`,
        );
      }
      assert.ok(sizes[0]! <= sizes[1]! && sizes[1]! <= sizes[2]!, `bytes ${sizes.join(' ≤ ')}`);
      if (strict) assert.ok(sizes[0]! < sizes[1]! && sizes[1]! < sizes[2]!, `bytes ${sizes.join(' < ')}`);
    });
  }

  it('a photo PNG whose palette misses the target is written near-lossless: close, and far smaller', async () => {
    const result = await runOnce(corpus.astronaut, { compression: 'high' });
    const lossless = await runImage(corpus.astronaut, { compression: 'lossless' });
    assert.equal((await sharp(result.path).metadata()).isPalette, false);
    const [a, b] = await Promise.all([decodeRgb(corpus.astronaut), decodeRgb(result.path)]);
    let max = 0;
    for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs(a.data[i]! - b.data[i]!));
    assert.ok(max > 0 && max <= 32, `largest pixel error ${max}`);
    assert.ok(
      result.outputSize < lossless.outputSize * 0.7,
      `near-lossless ${result.outputSize} vs lossless ${lossless.outputSize}`,
    );
  });

  // WebP and AVIF of the camera photo at high (the default level) meet its target: formats.test.ts, which
  // converts that photo to each format once.
});

test('JPEG and WebP of colour detail that 4:2:0 halves still meet high: 4:4:4 JPEG, near-lossless WebP', async () => {
  // One-pixel red/blue columns over a grey ramp: 4:2:0 averages each pair of columns to purple.
  const width = 256;
  const height = 128;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const grey = Math.round((x / width) * 120) + 60;
      data[i] = x % 2 === 0 ? 220 : grey;
      data[i + 1] = grey;
      data[i + 2] = x % 2 === 0 ? grey : 220;
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'presso-chroma-'));
  try {
    const path = join(dir, 'columns.png');
    await sharp(data, { raw: { width, height, channels: 3 } })
      .png()
      .toFile(path);
    const original = await decodeRgb(path);
    const jpeg = await runImage(path, { compression: 'high', format: 'jpeg' });
    const jpegScore = await scorePixels(original, await decodeRgb(await readFile(jpeg.path)));
    assert.ok(jpegScore >= QUALITY_TARGETS.high, `JPEG score ${jpegScore.toFixed(2)}`);
    assert.equal((await sharp(jpeg.path).metadata()).chromaSubsampling, '4:4:4');
    const webp = await runImage(path, { compression: 'high', format: 'webp' });
    const webpScore = await scorePixels(original, await decodeRgb(await readFile(webp.path)));
    assert.ok(webpScore >= QUALITY_TARGETS.high, `WebP score ${webpScore.toFixed(2)}`);
    // Lossless WebP (VP8L): the near-lossless last resort, not a lossy (VP8) encode.
    assert.equal((await readFile(webp.path)).subarray(12, 16).toString('latin1'), 'VP8L');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
