/**
 * Every ZIP office format (DOCX, XLSX, PPTX, ODT, ODS, ODP) with the corpus photo on its first page,
 * compressed at `high`: smaller, LibreOffice lays it out to the same page count, and the first page as a
 * reader sees it (LibreOffice -> PDF -> pdftoppm at 72 dpi) scores at least the level's SSIMULACRA 2
 * target against the input's. ODS and ODP also lose LibreOffice's thumbnail.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { createDocumentProcessor } from '../../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { QUALITY_TARGETS } from '../../../src/processors/image/quality/targets.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { documentJob } from './fixtures.ts';
import { firstPage, makePhotoDocuments, PHOTO_FORMATS, type PhotoFormat, parts } from './photo-fixtures.ts';

describe('document processor on every ZIP format with a photo', () => {
  const scratch = useScratch('presso-document-formats-');
  const processor = createDocumentProcessor(
    createImageProcessor(NO_TIME_PRESSURE),
    NO_TIME_PRESSURE,
    DEFAULT_SETTINGS,
  );
  let documents: Record<PhotoFormat, string>;
  before(() => {
    documents = makePhotoDocuments(scratch(), PHOTO_FORMATS);
  });

  for (const format of PHOTO_FORMATS) {
    test(`${format} at high: smaller, same pages, first page scores ≥ ${QUALITY_TARGETS.high}`, async (t) => {
      const input = documents[format];
      const result = await processor.process(documentJob(scratch(), input, format, { compression: 'high' }));
      assert.equal(result.format, format);
      assert.notEqual(result.path, input, 'the re-packed document was not kept');
      const [inBytes, outBytes] = [statSync(input).size, statSync(result.path).size];
      assert.ok(outBytes < inBytes * 0.7, `${outBytes} of ${inBytes}`);
      const names = parts(result.path).map((e) => e.name);
      assert.ok(
        names.some((n) => /^(word\/media|xl\/media|ppt\/media|Pictures)\/.+\.jpe?g$/.test(n)),
        'the photo is still there, still a JPEG',
      );
      assert.ok(!names.some((n) => /thumbnail/i.test(n)), `a thumbnail is left: ${names.join(', ')}`);
      const before = await firstPage(input, scratch());
      const after = await firstPage(result.path, scratch());
      assert.equal(after.pages, before.pages);
      assert.deepEqual(
        [after.pixels.width, after.pixels.height],
        [before.pixels.width, before.pixels.height],
      );
      const score = await scorePixels(before.pixels, after.pixels);
      t.diagnostic(`${outBytes} of ${inBytes} bytes; first page ${score.toFixed(1)}`);
      assert.ok(score >= QUALITY_TARGETS.high, `first page scored ${score.toFixed(1)}`);
    });
  }
});
