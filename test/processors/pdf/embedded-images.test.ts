/**
 * In-place edits of a PDF's objects: other applications' private data dropped at every level (no pixel
 * changes), and at lossy levels the embedded images (Flate RGB, Flate CMYK) recompressed as JPEG in their
 * own objects, downsampled where the page draws them past the level's resolution. Checked with Poppler's
 * renders, pdfimages, qpdf's check and its JSON, independently of the code under test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { MAX_PPI } from '../../../src/processors/pdf/embedded-images.ts';
import { createPdfProcessor } from '../../../src/processors/pdf/pdf-processor.ts';
import { readPnm } from '../../../src/processors/pdf/pnm.ts';
import { PAGE_TARGETS } from '../../../src/processors/pdf/targets.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { assemblePdf } from '../../support/pdf-writer.ts';
import { useScratch } from '../../support/scratch.ts';
import { pdfFacts, pdfJob, renderAll } from './fixtures.ts';

const stream = (dict: string, data: Buffer) =>
  Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);

/**
 * One page: a 256² RGB photo as Flate pixels drawn 4 inches wide (64 ppi; small, as the image search costs
 * by the pixel and nothing here depends on its size), a 600×400 CMYK photo as Flate
 * pixels drawn 2 inches wide (300 ppi: past `high`'s 200), a line of text, and 300 KB of an authoring
 * tool's private data behind /PieceInfo.
 */
async function writeImagePdf(path: string): Promise<void> {
  const rgb = await sharp(corpus.astronaut)
    .resize(256)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const cmyk = await sharp(corpus.canonPhoto)
    .rotate()
    .resize(600, 400, { fit: 'cover' })
    .toColourspace('cmyk')
    .raw()
    .toBuffer();
  const content = Buffer.from(
    'q 288 0 0 288 72 400 cm /Im0 Do Q\nq 144 0 0 96 400 150 cm /Im1 Do Q\nBT /F1 14 Tf 72 740 Td (Presso keeps this text) Tj ET',
    'latin1',
  );
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R ' +
      '/Resources << /Font << /F1 5 0 R >> /XObject << /Im0 6 0 R /Im1 7 0 R >> >> ' +
      '/PieceInfo << /Illustrator << /LastModified (D:20260101) /Private 8 0 R >> >> >>',
    stream('/Filter /FlateDecode', deflateSync(content)),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    stream(
      `/Type /XObject /Subtype /Image /Width ${rgb.info.width} /Height ${rgb.info.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`,
      deflateSync(rgb.data),
    ),
    stream(
      '/Type /XObject /Subtype /Image /Width 600 /Height 400 /ColorSpace /DeviceCMYK /BitsPerComponent 8 /Filter /FlateDecode',
      deflateSync(cmyk),
    ),
    stream('', randomBytes(300_000)),
  ];
  writeFileSync(path, assemblePdf(objects));
}

function objectsJson(path: string): string {
  return execFileSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-stream-data=none', path], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
}

/** `pdfimages -list` rows: enc, colour, width, height. */
function listImages(path: string): { enc: string; color: string; width: number; height: number }[] {
  return execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const c = l.trim().split(/\s+/);
      return { width: Number(c[3]), height: Number(c[4]), color: c[5] ?? '', enc: c[8] ?? '' };
    });
}

describe('PDF objects edited in place', () => {
  const scratch = useScratch('presso-pdf-images-');
  // Ghostscript left out: on a page this simple its rewrite can win, and this is the in-place engine's test.
  const processor = createPdfProcessor({ images: createImageProcessor(), engines: ['images', 'qpdf'] });
  let input: string;
  before(async () => {
    input = join(scratch(), 'images.pdf');
    await writeImagePdf(input);
  });
  /** The lossless job and the input's page, made once: both tests compare to them. */
  let lossless: ReturnType<typeof processor.process> | undefined;
  const losslessResult = () => {
    lossless ??= processor.process(pdfJob(scratch(), input, { compression: 'lossless' }));
    return lossless;
  };
  let inputPage: string | undefined;
  const renderInput = () => {
    inputPage ??= renderAll(input, join(scratch(), 'in'))[0]!;
    return inputPage;
  };

  test('lossless drops private data (/PieceInfo) and changes no pixel', async () => {
    assert.match(objectsJson(input), /PieceInfo/);
    const result = await losslessResult();
    assert.doesNotMatch(objectsJson(result.path), /PieceInfo/);
    assert.ok(
      statSync(result.path).size < statSync(input).size - 290_000,
      `${statSync(result.path).size} bytes`,
    );
    const after = renderAll(result.path, join(scratch(), 'll-out'));
    assert.ok(readFileSync(renderInput()).equals(readFileSync(after[0]!)), 'page pixels identical');
    assert.deepEqual(
      listImages(result.path).map((i) => i.enc),
      ['image', 'image'],
    );
  });

  test('high recompresses RGB and CMYK pixels as JPEG in place, downsampling past 200 ppi; pages meet the target', async () => {
    const lossless = await losslessResult();
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'high' }));
    const facts = pdfFacts(result.path);
    assert.equal(facts.pages, 1);
    assert.match(facts.text, /Presso keeps this text/);
    const images = listImages(result.path);
    assert.deepEqual(
      images.map((i) => [i.enc, i.color]),
      [
        ['jpeg', 'rgb'],
        ['jpeg', 'cmyk'],
      ],
    );
    // The RGB photo is drawn at 64 ppi: kept at 256². The CMYK one at 300 ppi: down to 200 ppi.
    assert.deepEqual([images[0]!.width, images[0]!.height], [256, 256]);
    const scale = MAX_PPI.high / 300;
    assert.deepEqual(
      [images[1]!.width, images[1]!.height],
      [Math.round(600 * scale), Math.round(400 * scale)],
    );
    const bytes = statSync(result.path).size;
    assert.ok(bytes < statSync(lossless.path).size * 0.5, `${bytes} vs ${statSync(lossless.path).size}`);
    // Both photos, the CMYK one included (a wrong /Decode would invert its colours), look as before.
    const after = renderAll(result.path, join(scratch(), 'h-out'));
    const score = await scorePixels(await readPnm(renderInput()), await readPnm(after[0]!));
    assert.ok(score >= PAGE_TARGETS.high, `page score ${score}`);
    assert.match(execFileSync('pdffonts', [result.path], { encoding: 'utf8' }), /Helvetica/);
  });
});
