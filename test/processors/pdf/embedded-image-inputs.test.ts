/**
 * Embedded images the in-place engine meets in real files and must not mangle: camera JPEGs kept with
 * their EXIF orientation and ICC profile (readers draw the samples as stored, in the PDF's colour space),
 * colour-key masks given by reference, objects of a generation above 0, numbers JavaScript would print in
 * exponent form, and one image qpdf cannot decode among others. Checked with Poppler's renders, pdfimages
 * and qpdf, independently of the code under test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { createPdfProcessor } from '../../../src/processors/pdf/pdf-processor.ts';
import { readPnm } from '../../../src/processors/pdf/pnm.ts';
import { PAGE_TARGETS } from '../../../src/processors/pdf/targets.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { useScratch } from '../../support/scratch.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { pdfFacts, pdfJob, renderAll } from './fixtures.ts';

const stream = (dict: string, data: Buffer) =>
  Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);

/** Objects numbered from 1, each with its generation; object 1 is the catalog. */
function assemble(objects: [generation: number, body: string | Buffer][]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  for (const [index, [generation, body]] of objects.entries()) {
    offsets.push(offset);
    const chunk = Buffer.concat([
      Buffer.from(`${index + 1} ${generation} obj\n`, 'latin1'),
      Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(chunk);
    offset += chunk.length;
  }
  const entries = offsets.map(
    (at, i) => `${String(at).padStart(10, '0')} ${String(objects[i]![0]).padStart(5, '0')} n `,
  );
  const trailer = [`<< /Size ${objects.length + 1} /Root 1 0 R >>`, 'startxref', String(offset), '%%EOF', ''];
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...entries, 'trailer', ...trailer];
  parts.push(Buffer.from(xref.join('\n'), 'latin1'));
  return Buffer.concat(parts);
}

/** A one-page PDF drawing image object 5 (of `generation`) 4 inches wide, with `extra` objects after it. */
function onePage(image: Buffer, generation = 0, extra: (string | Buffer)[] = [], page = ''): Buffer {
  return assemble([
    [0, '<< /Type /Catalog /Pages 2 0 R >>'],
    [0, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [
      0,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im0 5 ${generation} R >> >> ${page}>>`,
    ],
    [0, stream('', Buffer.from('q 288 0 0 216 72 400 cm /Im0 Do Q'))],
    [generation, image],
    ...extra.map((body): [number, string | Buffer] => [0, body]),
  ]);
}

/** A one-page PDF drawing image objects 5 and 6 side by side, with `extra` objects from 7 on. */
function twoImages(first: Buffer, second: Buffer, extra: (string | Buffer)[] = []): Buffer {
  return assemble([
    [0, '<< /Type /Catalog /Pages 2 0 R >>'],
    [0, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [
      0,
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im0 5 0 R /Im1 6 0 R >> >> >>',
    ],
    [0, stream('', Buffer.from('q 200 0 0 200 72 400 cm /Im0 Do Q q 200 0 0 200 300 400 cm /Im1 Do Q'))],
    [0, first],
    [0, second],
    ...extra.map((body): [number, string | Buffer] => [0, body]),
  ]);
}

/**
 * The pictures are small (a 400×300 photo, the astronaut at 256²): each goes through the image search,
 * which costs by the pixel, and no property here depends on their size.
 */
const FLATE_SIDE = 256;
/** The astronaut as FLATE_SIDE² RGB pixels. */
const astronautPixels = () =>
  sharp(corpus.astronaut).resize(FLATE_SIDE).removeAlpha().raw().toBuffer({ resolveWithObject: true });

const flateImage = (pixels: Buffer, extra = '') =>
  stream(
    `/Type /XObject /Subtype /Image /Width ${FLATE_SIDE} /Height ${FLATE_SIDE} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode ${extra}`,
    deflateSync(pixels),
  );

/** Each image as pdfimages lists it, in drawing order: size and encoding. */
function listImages(path: string): { width: number; height: number; enc: string }[] {
  const lines = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
  return lines.map((line) => {
    const c = line.trim().split(/\s+/);
    return { width: Number(c[3]), height: Number(c[4]), enc: c[8]! };
  });
}

async function pageScore(before: string, after: string, prefix: string): Promise<number> {
  const [a] = renderAll(before, `${prefix}-in`);
  const [b] = renderAll(after, `${prefix}-out`);
  return scorePixels(await readPnm(a!), await readPnm(b!));
}

describe('embedded images from real-world PDFs', () => {
  const scratch = useScratch('presso-pdf-image-inputs-');
  const processor = createPdfProcessor({ images: createImageProcessor(), engines: ['images', 'qpdf'] });
  const photo = () => sharp(smallCorpus.gpsPhoto).rotate().resize(400, 300, { fit: 'fill' });
  const jpegImage = (jpeg: Buffer, space = '/DeviceRGB') =>
    stream(
      `/Type /XObject /Subtype /Image /Width 400 /Height 300 /ColorSpace ${space} /BitsPerComponent 8 /Filter /DCTDecode`,
      jpeg,
    );

  test('a camera JPEG with an EXIF orientation is recompressed as drawn, not turned', async () => {
    const jpeg = await photo().withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
    const input = join(scratch(), 'exif.pdf');
    writeFileSync(input, onePage(jpegImage(jpeg)));
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'medium' }));
    const [image] = listImages(result.path);
    assert.deepEqual([image?.width, image?.height, image?.enc], [400, 300, 'jpeg']);
    assert.ok(statSync(result.path).size < statSync(input).size * 0.9, 'the image was recompressed');
    const score = await pageScore(input, result.path, join(scratch(), 'exif'));
    assert.ok(score >= PAGE_TARGETS.medium, `page score ${score}`);
  });

  test("a JPEG's own ICC profile is not applied: the PDF's colour space rules, as readers draw it", async () => {
    // ROMM (ProPhoto) RGB, Ghostscript's copy: far enough from sRGB that a conversion shows.
    const icc = readFileSync('/usr/share/color/icc/ghostscript/rommrgb.icc');
    const plain = await photo().jpeg({ quality: 95 }).toBuffer();
    const app2 = Buffer.concat([
      Buffer.from([0xff, 0xe2, 0, 0]),
      Buffer.from('ICC_PROFILE\0', 'latin1'),
      Buffer.from([1, 1]),
      icc,
    ]);
    app2.writeUInt16BE(app2.length - 2, 2);
    const jpeg = Buffer.concat([plain.subarray(0, 2), app2, plain.subarray(2)]);
    assert.ok((await sharp(jpeg).metadata()).icc, 'the fixture carries its profile');
    const input = join(scratch(), 'icc.pdf');
    writeFileSync(
      input,
      onePage(jpegImage(jpeg, '[/ICCBased 6 0 R]'), 0, [stream('/N 3 /Alternate /DeviceRGB', icc)]),
    );
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'medium' }));
    assert.ok(statSync(result.path).size < statSync(input).size * 0.9, 'the image was recompressed');
    const score = await pageScore(input, result.path, join(scratch(), 'icc'));
    assert.ok(score >= PAGE_TARGETS.medium, `page score ${score}`);
  });

  test('a colour-key /Mask given by reference keeps its image lossless; the other image is recompressed', async () => {
    const { data } = await astronautPixels();
    const input = join(scratch(), 'mask.pdf');
    writeFileSync(
      input,
      twoImages(flateImage(data, '/Mask 7 0 R'), flateImage(data), ['[255 255 255 255 255 255]']),
    );
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'high' }));
    assert.deepEqual(
      listImages(result.path).map((i) => i.enc),
      ['image', 'jpeg'], // in drawing order (the output's objects are renumbered)
    );
  });

  test('an image object of generation 1 is recompressed like any other', async () => {
    const jpeg = await photo().jpeg({ quality: 95 }).toBuffer();
    const input = join(scratch(), 'generation.pdf');
    writeFileSync(input, onePage(jpegImage(jpeg), 1));
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'high' }));
    assert.ok(statSync(result.path).size < statSync(input).size * 0.9, `${statSync(result.path).size} bytes`);
    assert.equal(pdfFacts(result.path).pages, 1);
  });

  test('a real below 1e-6 survives the JSON round trip of a private-data edit (no exponent form)', async () => {
    const input = join(scratch(), 'tiny.pdf');
    writeFileSync(
      input,
      assemble([
        [0, '<< /Type /Catalog /Pages 2 0 R >>'],
        [0, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
        [
          0,
          '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /CropBox [0.0000001 0 612 792] /Contents 4 0 R /PieceInfo << /X << /Private 5 0 R >> >> >>',
        ],
        [0, stream('', Buffer.from('0 0 1 rg 72 72 200 200 re f'))],
        [0, stream('', Buffer.alloc(50_000, 7))],
      ]),
    );
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'lossless' }));
    assert.equal(pdfFacts(result.path).pages, 1);
    // Every object written out uncompressed, as text (the output's objects are renumbered).
    const objects = execFileSync('qpdf', ['--qdf', '--object-streams=disable', result.path, '-'], {
      encoding: 'latin1',
    });
    assert.match(objects, /\/CropBox \[\s*0\.0000001\s+0\s+612\s+792\s*\]/);
    assert.doesNotMatch(objects, /PieceInfo/);
    assert.ok(statSync(result.path).size < 10_000, `${statSync(result.path).size} bytes`);
  });

  test('an image qpdf cannot decode stays as it is, and the others are still recompressed', async () => {
    const { data } = await astronautPixels();
    // Predictor 3 is no predictor the PDF format defines: qpdf refuses to decode the stream.
    const unknown = flateImage(
      data,
      `/DecodeParms << /Predictor 3 /Colors 3 /Columns ${FLATE_SIDE} /BitsPerComponent 8 >>`,
    );
    const input = join(scratch(), 'predictor.pdf');
    writeFileSync(input, twoImages(unknown, flateImage(data)));
    const result = await processor.process(pdfJob(scratch(), input, { compression: 'high' }));
    assert.deepEqual(
      listImages(result.path).map((i) => i.enc),
      ['image', 'jpeg'], // in drawing order (the output's objects are renumbered)
    );
  });

  test('a Flate image that inflates past its declared size is cut off at extraction, not written whole', async () => {
    const { data } = await astronautPixels();
    // Declares 512×512 RGB (768 KiB) but inflates to 16 MiB, twice the bound below: 16 KiB in the file.
    const bomb = stream(
      '/Type /XObject /Subtype /Image /Width 512 /Height 512 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode',
      deflateSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 }),
    );
    const input = join(scratch(), 'bomb.pdf');
    writeFileSync(input, twoImages(bomb, flateImage(data)));
    const job = pdfJob(scratch(), input, { compression: 'high' });
    const result = await processor.process(job);
    assert.deepEqual(
      listImages(result.path).map((i) => i.enc),
      ['image', 'jpeg'],
    );
    const largest = Math.max(
      ...readdirSync(job.workDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => statSync(join(entry.parentPath, entry.name)).size),
    );
    assert.ok(largest < 8 * 1024 * 1024, `a ${largest}-byte file was written`);
  });
});
