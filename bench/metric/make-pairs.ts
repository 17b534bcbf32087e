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
import { decodeRgb, sharpFromRgb } from '../../src/processors/image/quality/pixels.ts';
import { corpusDir } from '../../test/support/corpus.ts';
import { avif, cleanUp, type Distortion, jpeg, pngquant, run, toPng, webp } from './distortions.ts';
import { type Chromaticities, withColourChunks, withoutChunks } from './png-chunks.ts';

const outDir = resolve(import.meta.dirname, '../../test/fixtures/ssimulacra2');
const skimage = 'usr/lib/python3/dist-packages/skimage/data';
const forensics = 'usr/share/forensics-samples/original-files';

interface Source {
  name: string;
  path: string;
  kind: 'photo' | 'graphic' | 'alpha';
  left?: number;
  top?: number;
  distortions: Distortion[];
}

const SOURCES: Source[] = [
  {
    name: 'coffee',
    path: `${skimage}/coffee.png`,
    kind: 'photo',
    left: 200,
    top: 60,
    distortions: [jpeg(30), webp(50), avif(40), pngquant(64)],
  },
  {
    name: 'astronaut',
    path: `${skimage}/astronaut.png`,
    kind: 'photo',
    left: 128,
    top: 40,
    distortions: [jpeg(70), webp(80), avif(25), jpeg(90, '4:4:4')],
  },
  {
    name: 'chelsea',
    path: `${skimage}/chelsea.png`,
    kind: 'photo',
    left: 100,
    top: 20,
    distortions: [jpeg(50), webp(30), avif(50), pngquant(128)],
  },
  {
    name: 'rocket',
    path: `${skimage}/rocket.jpg`,
    kind: 'photo',
    left: 200,
    top: 100,
    distortions: [jpeg(85), webp(90), avif(35)],
  },
  {
    name: 'motorcycle',
    path: `${skimage}/motorcycle_left.png`,
    kind: 'photo',
    left: 240,
    top: 120,
    distortions: [jpeg(40), webp(65), avif(30)],
  },
  {
    name: 'canon',
    path: `${forensics}/pic1/IMG_1054.JPG`,
    kind: 'photo',
    left: 500,
    top: 350,
    distortions: [jpeg(60), webp(70), avif(45)],
  },
  {
    name: 'phone',
    path: `${forensics}/pic1/IMG-20191006-WA0002.jpg`,
    kind: 'photo',
    left: 380,
    top: 260,
    distortions: [jpeg(75, '4:4:4'), webp(45), avif(20)],
  },
  {
    name: 'hubble',
    path: `${skimage}/hubble_deep_field.jpg`,
    kind: 'photo',
    left: 400,
    top: 300,
    distortions: [jpeg(45), avif(35)],
  },
  {
    name: 'page',
    path: `${skimage}/page.png`,
    kind: 'graphic',
    left: 60,
    top: 0,
    distortions: [pngquant(8), jpeg(80), webp(75)],
  },
  {
    name: 'text',
    path: `${skimage}/text.png`,
    kind: 'graphic',
    left: 100,
    top: 0,
    distortions: [pngquant(16), jpeg(60)],
  },
  {
    name: 'green-palette',
    path: `${skimage}/green_palette.png`,
    kind: 'graphic',
    left: 32,
    top: 0,
    distortions: [pngquant(8), webp(60), avif(30)],
  },
  {
    name: 'color',
    path: `${skimage}/color.png`,
    kind: 'graphic',
    left: 60,
    top: 60,
    distortions: [pngquant(64), jpeg(70)],
  },
  {
    name: 'debian-screen',
    path: `${forensics}/pic2/d-debian.png`,
    kind: 'alpha',
    left: 300,
    top: 200,
    distortions: [pngquant(32), webp(75), avif(35)],
  },
  {
    name: 'debian-alpha',
    path: `${forensics}/pic1/debian.png`,
    kind: 'alpha',
    left: 280,
    top: 150,
    distortions: [pngquant(64), webp(60), avif(45)],
  },
  {
    name: 'logo',
    path: `${skimage}/logo.png`,
    kind: 'alpha',
    left: 120,
    top: 120,
    distortions: [pngquant(48), avif(40), webp(85)],
  },
  {
    name: 'horse',
    path: `${skimage}/horse.png`,
    kind: 'alpha',
    left: 80,
    top: 40,
    distortions: [pngquant(4), webp(50)],
  },
];

const ADOBE_RGB: Chromaticities = {
  white: [0.3127, 0.329],
  red: [0.64, 0.33],
  green: [0.21, 0.71],
  blue: [0.15, 0.06],
};
const TAGS = ['gAMA', 'cHRM', 'iCCP', 'sRGB'];

async function crop(source: Source): Promise<Buffer> {
  const image = sharp(join(corpusDir, source.path)).rotate();
  const { width = 0, height = 0 } = await image.metadata();
  const left = Math.min(source.left ?? 0, Math.max(0, width - 256));
  const top = Math.min(source.top ?? 0, Math.max(0, height - 256));
  return image
    .extract({ left, top, width: Math.min(256, width - left), height: Math.min(256, height - top) })
    .png({ compressionLevel: 9 })
    .toBuffer();
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
  reference: number | null;
}

const pairs: Pair[] = [];
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

async function add(name: string, source: string, kind: string, original: Buffer, distortions: Distortion[]) {
  writeFileSync(join(outDir, `${name}.png`), original);
  for (const d of distortions) {
    const file = `${name}.${d.name}.${d.ext}`;
    writeFileSync(join(outDir, file), await d.make(original));
    pairs.push({ original: `${name}.png`, distorted: file, source, kind, made: d.made, reference: null });
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
await add('gama-chrm-coffee', `${skimage}/coffee.png`, 'gAMA+cHRM', adobe(coffee2), colourDistortions(adobe));
await add('gama-chelsea', `${skimage}/chelsea.png`, 'gAMA', mac(chelsea2), colourDistortions(mac));
const rocketCrop = await crop({
  name: 'x',
  path: `${skimage}/rocket.jpg`,
  kind: 'photo',
  left: 330,
  top: 150,
  distortions: [],
});
const p3 = await sharp(rocketCrop).withIccProfile('p3').png({ compressionLevel: 9 }).toBuffer();
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
