/**
 * Regenerates the metric's reference pair set (test/fixtures/ssimulacra2/) from the real-file corpus and,
 * when SSIMULACRA2_BIN names the published `ssimulacra2` binary (cloudinary/ssimulacra2 built from source),
 * scores every pair with it and writes the scores into the manifest. Not part of the test run:
 *
 *   SSIMULACRA2_BIN=/path/to/ssimulacra2 node bench/metric/make-pairs.ts
 *
 * Originals are crops (≤ 256 px) stored as PNG; distortions come from the real encoders (distortions.ts).
 * Colour-tagged originals are made here: gAMA/cHRM chunks written into a PNG (libvips cannot write them)
 * and a Display P3 iCCP profile embedded by sharp.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { decodeRgb, sharpFromRgb } from '../../src/processors/shared/metric/pixels.ts';
import { corpusDir } from '../../test/support/corpus.ts';
import { cleanUp, type Distortion, run, toPng } from './distortions.ts';
import { SOURCES, type Source, skimage } from './pair-sources.ts';
import { type Chromaticities, withColourChunks, withoutChunks } from './png-chunks.ts';

const outDir = resolve(import.meta.dirname, '../../test/fixtures/ssimulacra2');

const ADOBE_RGB: Chromaticities = {
  white: [0.3127, 0.329],
  red: [0.64, 0.33],
  green: [0.21, 0.71],
  blue: [0.15, 0.06],
};
const TAGS = ['gAMA', 'cHRM', 'iCCP', 'sRGB'];

/** The crop as PNG, and how it was taken (sharp, EXIF orientation applied). */
async function crop(source: Source): Promise<{ png: Buffer; made: string }> {
  const image = sharp(join(corpusDir, source.path)).rotate();
  const { width = 0, height = 0 } = await image.metadata();
  const left = Math.min(source.left ?? 0, Math.max(0, width - 256));
  const top = Math.min(source.top ?? 0, Math.max(0, height - 256));
  const size = { width: Math.min(256, width - left), height: Math.min(256, height - top) };
  const png = await image
    .extract({ left, top, ...size })
    .png({ compressionLevel: 9 })
    .toBuffer();
  return { png, made: `${size.width}×${size.height} crop at (${left}, ${top}), as PNG` };
}

/** The stored pixel values of a tagged PNG, tags dropped: what a colour-blind pipeline would encode. */
const untagged = (png: Buffer) => toPng(withoutChunks(png, TAGS));
/** Colour-managed to sRGB by Presso's own decode (the reference score says whether it got it right). */
const converted = async (png: Buffer) =>
  sharpFromRgb(await decodeRgb(png))
    .png()
    .toBuffer();

interface Pair {
  original: string;
  distorted: string;
  source: string;
  kind: string;
  made: string;
  originalMade: string;
  reference: number | null;
}

const pairs: Pair[] = [];
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

async function add(
  name: string,
  source: string,
  kind: string,
  { png: original, made: originalMade }: { png: Buffer; made: string },
  distortions: Distortion[],
) {
  writeFileSync(join(outDir, `${name}.png`), original);
  for (const d of distortions) {
    const file = `${name}.${d.name}.${d.ext}`;
    writeFileSync(join(outDir, file), await d.make(original));
    pairs.push({
      original: `${name}.png`,
      distorted: file,
      source,
      kind,
      made: d.made,
      originalMade,
      reference: null,
    });
  }
}

for (const source of SOURCES)
  await add(source.name, source.path, source.kind, await crop(source), source.distortions);

// Colour-tagged originals: the same stored values read as Adobe RGB with a pure 2.2 gamma (gAMA + cHRM),
// as a 1.8 gamma on sRGB primaries (gAMA alone), and real Display P3 pixels with their ICC profile.
const tagged = (
  name: string,
  made: string,
  make: (png: Buffer) => Promise<Buffer>,
  ext: 'png' | 'jpg' = 'jpg',
): Distortion => ({ name, made, make, ext });
const colourDistortions = (retag: (png: Buffer) => Buffer) => [
  tagged(
    'untagged-q90',
    'stored values without the tags, sharp mozjpeg quality 90 (a colour-blind pipeline)',
    async (png) =>
      sharp(await untagged(png))
        .jpeg({ quality: 90, mozjpeg: true })
        .toBuffer(),
  ),
  tagged('srgb-q80', 'converted to sRGB by Presso decodeRgb, sharp mozjpeg quality 80', async (png) =>
    sharp(await converted(png))
      .jpeg({ quality: 80, mozjpeg: true })
      .toBuffer(),
  ),
  tagged(
    'tagged-pngquant-64',
    'pngquant 64 of the stored values, the same tags written back',
    async (png) => retag(execFileSync('pngquant', ['64', '-'], { input: await untagged(png) })),
    'png',
  ),
];
const coffee2 = await crop({
  name: 'x',
  path: `${skimage}/coffee.png`,
  kind: 'photo',
  left: 0,
  top: 140,
  distortions: [],
});
const chelsea2 = await crop({
  name: 'x',
  path: `${skimage}/chelsea.png`,
  kind: 'photo',
  left: 195,
  top: 44,
  distortions: [],
});
const adobe = (png: Buffer) => withColourChunks(png, 1 / 2.2, ADOBE_RGB);
const mac = (png: Buffer) => withColourChunks(png, 1 / 1.8);
await add(
  'gama-chrm-coffee',
  `${skimage}/coffee.png`,
  'gAMA+cHRM',
  {
    png: adobe(coffee2.png),
    made: `${coffee2.made}; gAMA 1/2.2 and cHRM Adobe RGB (1998), D65 written after IHDR`,
  },
  colourDistortions(adobe),
);
await add(
  'gama-chelsea',
  `${skimage}/chelsea.png`,
  'gAMA',
  { png: mac(chelsea2.png), made: `${chelsea2.made}; gAMA 1/1.8 written after IHDR (no cHRM)` },
  colourDistortions(mac),
);
const rocketCrop = await crop({
  name: 'x',
  path: `${skimage}/rocket.jpg`,
  kind: 'photo',
  left: 330,
  top: 150,
  distortions: [],
});
const p3 = {
  png: await sharp(rocketCrop.png).withIccProfile('p3').png({ compressionLevel: 9 }).toBuffer(),
  made: `${rocketCrop.made}; converted to Display P3 with the profile embedded (sharp withIccProfile('p3'))`,
};
await add('iccp-p3-rocket', `${skimage}/rocket.jpg`, 'iCCP', p3, [
  ...colourDistortions((png) => png).slice(0, 2),
  tagged('p3-q85', 'sharp mozjpeg quality 85 keeping the P3 profile and values', (png) =>
    sharp(png).keepIccProfile().jpeg({ quality: 85, mozjpeg: true }).toBuffer(),
  ),
]);

const bin = process.env.SSIMULACRA2_BIN;
if (bin !== undefined) {
  for (const pair of pairs) {
    const out = run(bin, [join(outDir, pair.original), join(outDir, pair.distorted)]).toString();
    pair.reference = Number(Number.parseFloat(out).toFixed(4));
  }
}
writeFileSync(
  join(outDir, 'pairs.json'),
  `${JSON.stringify({ reference: bin === undefined ? null : 'cloudinary/ssimulacra2 (SSIMULACRA 2.1), built from source', pairs }, null, 1)}\n`,
);
cleanUp();
console.log(
  `${pairs.length} pairs in ${outDir}${bin === undefined ? ' (no reference scores: set SSIMULACRA2_BIN)' : ''}`,
);
