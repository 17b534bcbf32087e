/**
 * The image processor against the Processor contract, with one real file per declared input format:
 * corpus files where the corpus has the format, otherwise files written by sharp, heif-enc or the
 * test BMP/ICO writer from a corpus photo.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import sharp from 'sharp';
import { detectFile } from '../../../src/media/detect.ts';
import { readIconDirectory } from '../../../src/processors/image/codecs/ico.ts';
import { imageModule } from '../../../src/processors/image/index.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { writeBmp, writeIco } from '../../support/bmp-writer.ts';
import { corpus, corpusDir } from '../../support/corpus.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-image-contract-'));
after(() => rm(dir, { recursive: true, force: true }));

async function save(name: string, bytes: Buffer | Promise<Buffer>): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, await bytes);
  return path;
}

const photo = sharp(corpus.chelsea).resize(160);
const small = await photo.clone().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
const png32 = await sharp(corpus.chelsea).resize(32, 32).png().toBuffer();
const jpeg = await save('photo.jpeg', photo.clone().jpeg({ quality: 85 }).toBuffer());
const heic = join(dir, 'photo.heic');
execFileSync('heif-enc', ['-q', '60', jpeg, '-o', heic]);
const pngBytes = await readFile(corpus.chelsea);
const damaged = Buffer.from(pngBytes);
for (let i = 200; i < damaged.length; i += 7) damaged[i] = (damaged[i] ?? 0) ^ 0x5a;
const bmp = writeBmp({
  width: small.info.width,
  height: small.info.height,
  bitCount: 24,
  rgba: new Uint8Array(small.data),
});

processorContract(
  imageModule,
  {
    byFormat: {
      jpeg,
      png: corpus.chelsea,
      webp: await save('photo.webp', photo.clone().webp({ quality: 80 }).toBuffer()),
      avif: await save('photo.avif', photo.clone().avif({ quality: 60 }).toBuffer()),
      gif: corpus.animatedGif,
      tiff: join(corpusDir, 'usr/lib/python3/dist-packages/skimage/data/multipage.tif'),
      svg: await save(
        'drawing.svg',
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48" viewBox="0 0 64 48">' +
            '<rect width="64" height="48" fill="#369"/><circle cx="32" cy="24" r="16" fill="#fc0"/></svg>',
        ),
      ),
      heic,
      bmp: await save('photo.bmp', bmp),
      ico: await save('icon.ico', writeIco([{ png: png32, size: 32 }])),
    },
    corrupt: [
      corpus.truncatedJpeg,
      await save('damaged.png', damaged),
      await save('cut.png', pngBytes.subarray(0, pngBytes.length / 2)),
      await save('cut.bmp', bmp.subarray(0, bmp.length / 3)),
    ],
    // AVIF of a 12 MP photo runs for seconds: long enough that every abort lands mid-run.
    slow: { path: corpus.gpsPhoto, params: { format: 'avif', compression: 'medium' } },
    async verifyOutput(result) {
      const detected = await detectFile(result.path);
      assert.equal(detected?.format, result.format);
      if (result.format === 'ico') {
        assert.ok(readIconDirectory(await readFile(result.path)).length > 0);
        return;
      }
      const decoded = await sharp(result.path, { failOn: 'error' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      assert.ok(decoded.info.width > 0 && decoded.info.height > 0);
    },
  },
  { PRESSO_IMAGE_TIME_BUDGET: '30m', PRESSO_IMAGE_TIME_FLOOR: '30m' },
);
