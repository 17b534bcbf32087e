/**
 * `document.images.format`: a photo saved as PNG inside a DOCX and an ODT becomes JPEG, its part renamed
 * and every reference updated (relationships and content types; manifest and content.xml), and LibreOffice
 * still draws it: the first page scores at the level's target against the input's. A picture with
 * transparency, and any picture at `lossless`, keeps its format; so does one whose alpha cannot be read under the
 * operator's image pixel cap (`PRESSO_IMAGE_MAX_PIXELS`, handed to documents by the host).
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createDocumentProcessor } from '../../../src/processors/document/document-processor.ts';
import type { ZipEntry } from '../../../src/processors/document/zip.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { QUALITY_TARGETS } from '../../../src/processors/image/quality/targets.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { onceEach } from '../../support/once-each.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { documentJob } from './fixtures.ts';
import {
  firstPages,
  makePhotoDocumentSets,
  makePhotoDocuments,
  type PhotoFormat,
  parts,
  partText,
  photoAsPng,
} from './photo-fixtures.ts';

type Page = Awaited<ReturnType<typeof firstPages>>[number];

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
  // The DOCX and the ODT hold the same PNG photo: its search runs once (once-each.ts). The processor's own
  // re-opening of each result (`verify`, a LibreOffice start per job) is document.test.ts's: what this file
  // proves is in the parts, and the pages it draws of the converted DOCX and ODT.
  const processor = createDocumentProcessor(
    onceEach(createImageProcessor(NO_TIME_PRESSURE), scratch),
    { ...NO_TIME_PRESSURE, verify: false },
    DEFAULT_SETTINGS,
  );
  let pngDocuments: Record<PhotoFormat, string>;
  let transparentDocx: string;
  let opaqueAlphaDocx: string;
  before(async () => {
    // The DOCX of each picture in one LibreOffice start, the ODT in another (four starts before).
    const photo = await photoAsPng();
    // Opaque, with an alpha channel: its pixels must be read to know it may become a JPEG. It and the
    // transparent picture are small (160 and 200 px wide, still far above the 1,000-pixel cap below): each
    // goes through the image search, which costs by the pixel (kept as PNG under the cap, the 640×480 one
    // cost seconds), and whether a picture may become a JPEG does not depend on its size.
    const opaqueAlpha = await sharp(photo).resize(160).ensureAlpha().png().toBuffer();
    const transparent = await sharp(corpus.alphaPng).resize(200).png().toBuffer();
    const docx = makePhotoDocumentSets(scratch(), ['docx'], [photo, transparent, opaqueAlpha]);
    pngDocuments = { ...makePhotoDocuments(scratch(), ['odt'], photo), docx: docx[0]!.docx };
    transparentDocx = docx[1]!.docx;
    opaqueAlphaDocx = docx[2]!.docx;
  });

  const JPEG_PARAMS = { compression: 'high', images: { format: 'jpeg' } };
  /**
   * The DOCX and the ODT converted, then both inputs' and outputs' first pages drawn by one LibreOffice
   * start (four before); made once, by the first of the two tests that asks.
   */
  let rendered: Promise<Record<'docx' | 'odt', { input: string; output: string; pages: [Page, Page] }>>;
  function convertedAndRendered() {
    rendered ??= (async () => {
      const docx = await processor.process(documentJob(scratch(), pngDocuments.docx, 'docx', JPEG_PARAMS));
      const odt = await processor.process(documentJob(scratch(), pngDocuments.odt, 'odt', JPEG_PARAMS));
      const [docxIn, docxOut, odtIn, odtOut] = await firstPages(
        [pngDocuments.docx, docx.path, pngDocuments.odt, odt.path],
        scratch(),
      );
      return {
        docx: { input: pngDocuments.docx, output: docx.path, pages: [docxIn!, docxOut!] },
        odt: { input: pngDocuments.odt, output: odt.path, pages: [odtIn!, odtOut!] },
      };
    })();
    return rendered;
  }

  /** What every conversion must hold: smaller, same pages, first page at target. */
  async function convertAndRender(format: 'docx' | 'odt') {
    const { input, output, pages } = (await convertedAndRendered())[format];
    assert.notEqual(output, input, 'the converted document was not kept');
    assert.ok(statSync(output).size < statSync(input).size * 0.3, 'a PNG photo as JPEG is much smaller');
    const [before, after] = pages;
    assert.equal(after.pages, before.pages);
    const score = await scorePixels(before.pixels, after.pixels);
    assert.ok(
      score >= QUALITY_TARGETS.high,
      `first page scored ${score.toFixed(1)}: the picture is not drawn`,
    );
    return parts(output);
  }

  test('DOCX: word/media/image1.png becomes image1.jpeg; relationship and content types follow', async () => {
    const input = parts(pngDocuments.docx);
    assert.equal(
      magic(input.find((e) => e.name === 'word/media/image1.png')),
      PNG,
      'the fixture holds a PNG',
    );
    const output = await convertAndRender('docx');
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
    const output = await convertAndRender('odt');
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
    const kept = await processor.process(documentJob(scratch(), transparentDocx, 'docx', JPEG_PARAMS));
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
    const docx = opaqueAlphaDocx;
    const params = JPEG_PARAMS;
    const converted = parts((await processor.process(documentJob(scratch(), docx, 'docx', params))).path);
    assert.equal(magic(converted.find((e) => e.name === 'word/media/image1.jpeg')), JPEG);
    // PRESSO_IMAGE_MAX_PIXELS below the picture: it is not decoded, counts as transparent and stays PNG.
    const capped = createDocumentProcessor(
      createImageProcessor(),
      { verify: false },
      {
        images: { maxPixels: 1000 },
      },
    );
    const kept = parts((await capped.process(documentJob(scratch(), docx, 'docx', params))).path);
    assert.ok(
      kept.some((e) => e.name === 'word/media/image1.png'),
      kept.map((e) => e.name).join(', '),
    );
  });
});
