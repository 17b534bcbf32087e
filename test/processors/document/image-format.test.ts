/**
 * `document.images.format`: a photo saved as PNG inside a DOCX and an ODT becomes JPEG, its part renamed
 * and every reference updated (relationships and content types; manifest and content.xml), and LibreOffice
 * still draws it: the first page scores at the level's target against the input's. A picture with
 * transparency, and any picture at `lossless`, keeps its format; so does one whose alpha cannot be read under the
 * operator's image pixel cap (`PRESSO_IMAGE_MAX_PIXELS`, handed to documents by the host).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createDocumentProcessor } from '../../../src/processors/document/document-processor.ts';
import type { ZipEntry } from '../../../src/processors/document/zip.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { QUALITY_TARGETS } from '../../../src/processors/image/quality/targets.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { documentJob } from './fixtures.ts';
import {
  firstPage,
  makePhotoDocuments,
  type PhotoFormat,
  parts,
  partText,
  photoAsPng,
} from './photo-fixtures.ts';

const JPEG = 'ffd8ff';
const PNG = '89504e47';
const magic = (entry: ZipEntry | undefined) => {
  const hex = entry?.data.subarray(0, 4).toString('hex') ?? '';
  return hex.startsWith(JPEG) ? JPEG : hex;
};
/** Every XML part's text, to prove no reference to the old name is left anywhere. */
const allXml = (entries: readonly ZipEntry[]) =>
  entries
    .filter((e) => /\.(xml|rels)$/.test(e.name))
    .map((e) => e.data.toString('utf8'))
    .join('\n');

describe('document images.format', () => {
  const scratch = useScratch('presso-document-image-format-');
  const processor = createDocumentProcessor(
    createImageProcessor(NO_TIME_PRESSURE),
    NO_TIME_PRESSURE,
    DEFAULT_SETTINGS,
  );
  let pngDocuments: Record<PhotoFormat, string>;
  before(async () => {
    pngDocuments = makePhotoDocuments(scratch(), ['docx', 'odt'], await photoAsPng());
  });

  /** Runs the job and checks what every conversion must hold: smaller, same pages, first page at target. */
  async function convertAndRender(format: PhotoFormat, path: string, params: Record<string, unknown>) {
    const result = await processor.process(documentJob(scratch(), path, format, params));
    assert.notEqual(result.path, path, 'the converted document was not kept');
    assert.ok(statSync(result.path).size < statSync(path).size * 0.3, 'a PNG photo as JPEG is much smaller');
    const before = await firstPage(path, scratch());
    const after = await firstPage(result.path, scratch());
    assert.equal(after.pages, before.pages);
    const score = await scorePixels(before.pixels, after.pixels);
    assert.ok(
      score >= QUALITY_TARGETS.high,
      `first page scored ${score.toFixed(1)}: the picture is not drawn`,
    );
    return parts(result.path);
  }

  test('DOCX: word/media/image1.png becomes image1.jpeg; relationship and content types follow', async () => {
    const input = parts(pngDocuments.docx);
    assert.equal(
      magic(input.find((e) => e.name === 'word/media/image1.png')),
      PNG,
      'the fixture holds a PNG',
    );
    const output = await convertAndRender('docx', pngDocuments.docx, {
      compression: 'high',
      images: { format: 'jpeg' },
    });
    const names = output.map((e) => e.name);
    assert.ok(!names.includes('word/media/image1.png'), names.join(', '));
    assert.equal(magic(output.find((e) => e.name === 'word/media/image1.jpeg')), JPEG);
    assert.match(partText(output, 'word/_rels/document.xml.rels'), /Target="media\/image1\.jpeg"/);
    const types = partText(output, '[Content_Types].xml');
    assert.match(types, /<Default Extension="jpeg" ContentType="image\/jpeg"\/>/);
    if (/PartName="\/word\/media\/image1/.test(partText(input, '[Content_Types].xml'))) {
      assert.match(types, /<Override PartName="\/word\/media\/image1\.jpeg" ContentType="image\/jpeg"\/>/);
    }
    assert.doesNotMatch(allXml(output), /image1\.png/);
  });

  test('ODT: Pictures/….png becomes ….jpg; manifest and content.xml follow', async () => {
    const input = parts(pngDocuments.odt);
    const picture = input.find((e) => /^Pictures\/.+\.png$/.test(e.name));
    assert.equal(magic(picture), PNG, 'the fixture holds a PNG');
    const output = await convertAndRender('odt', pngDocuments.odt, {
      compression: 'high',
      images: { format: 'jpeg' },
    });
    const renamed = picture!.name.replace(/\.png$/, '.jpg');
    assert.equal(magic(output.find((e) => e.name === renamed)), JPEG);
    assert.ok(!output.some((e) => e.name === picture!.name));
    assert.equal(output[0]!.name, 'mimetype');
    const manifest = partText(output, 'META-INF/manifest.xml');
    assert.ok(
      manifest.includes(`manifest:full-path="${renamed}" manifest:media-type="image/jpeg"`),
      manifest,
    );
    const image = /<draw:image\b[^>]*>/.exec(partText(output, 'content.xml'))?.[0] ?? '';
    assert.ok(image.includes(`xlink:href="${renamed}"`), image);
    assert.doesNotMatch(image, /mime-type="image\/png"/);
    assert.doesNotMatch(allXml(output), /\.png"/);
  });

  test('a picture with transparency stays PNG; at lossless an opaque one does too', async () => {
    const [transparent] = [makePhotoDocuments(scratch(), ['docx'], readFileSync(corpus.alphaPng)).docx];
    const kept = await processor.process(
      documentJob(scratch(), transparent, 'docx', { compression: 'high', images: { format: 'jpeg' } }),
    );
    const names = parts(kept.path).map((e) => e.name);
    assert.ok(names.includes('word/media/image1.png'), names.join(', '));
    assert.equal(magic(parts(kept.path).find((e) => e.name === 'word/media/image1.png')), PNG);

    const lossless = await processor.process(
      documentJob(scratch(), pngDocuments.docx, 'docx', {
        compression: 'lossless',
        images: { format: 'jpeg' },
      }),
    );
    const entries = parts(lossless.path);
    assert.equal(magic(entries.find((e) => e.name === 'word/media/image1.png')), PNG);
    assert.ok(!entries.some((e) => e.name.endsWith('.jpeg') && e.name.startsWith('word/media/')));
  });

  test("a picture with an alpha channel is decoded for it only under the operator's image pixel cap", async () => {
    // Opaque, with an alpha channel: its pixels must be read to know it may become a JPEG.
    const opaqueAlpha = await sharp(await photoAsPng())
      .ensureAlpha()
      .png()
      .toBuffer();
    const docx = makePhotoDocuments(scratch(), ['docx'], opaqueAlpha).docx;
    const params = { compression: 'high', images: { format: 'jpeg' } };
    const converted = parts((await processor.process(documentJob(scratch(), docx, 'docx', params))).path);
    assert.equal(magic(converted.find((e) => e.name === 'word/media/image1.jpeg')), JPEG);
    // PRESSO_IMAGE_MAX_PIXELS below the picture: it is not decoded, counts as transparent and stays PNG.
    const capped = createDocumentProcessor(createImageProcessor(), {}, { images: { maxPixels: 1000 } });
    const kept = parts((await capped.process(documentJob(scratch(), docx, 'docx', params))).path);
    assert.ok(
      kept.some((e) => e.name === 'word/media/image1.png'),
      kept.map((e) => e.name).join(', '),
    );
  });
});
